package io.latchkey.redis;

import java.util.Iterator;
import java.util.NoSuchElementException;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.Rawable;

/*
 * An EVALSHA command whose parameters are sent as they are: no wrapper object per parameter and no list that grows
 * with them. CommandArguments keeps each argument in an ArrayList of Rawable wrappers, built by one add() at a time:
 * a renewal batch of 128 grants has 640 parameters, and those wrappers and the list's copies as it grew were half of
 * what renewing 10,000 locks allocated.
 *
 * Jedis writes a command (Protocol.sendCommand) from size() and iterator() alone, taking each argument's bytes as it
 * takes the argument; both are overridden here. The iterator is itself the Rawable it hands out, pointed at each
 * parameter in turn: one object per send, and each send has its own, so one command may be sent to several nodes at
 * once (a Redlock round). getCommand() reads the superclass's list, which holds the command as usual.
 *
 * Immutable once made (the parameters are not copied: callers do not change them afterwards).
 */
final class EvalshaArguments extends CommandArguments {
    private final Rawable sha;
    private final Rawable keyCount;
    private final byte[][] params;

    EvalshaArguments(Rawable sha, Rawable keyCount, byte[][] params) {
        super(Protocol.Command.EVALSHA);
        this.sha = sha;
        this.keyCount = keyCount;
        this.params = params;
    }

    @Override
    public int size() {
        return 3 + params.length;
    }

    @Override
    public Rawable get(int index) {
        return switch (index) {
            case 0 -> Protocol.Command.EVALSHA;
            case 1 -> sha;
            case 2 -> keyCount;
            default -> RedisNode.argument(params[index - 3]);
        };
    }

    @Override
    public Iterator<Rawable> iterator() {
        return new Sending();
    }

    /** One pass over the arguments; for the parameters it hands out itself, pointed at the one just taken. */
    private final class Sending implements Iterator<Rawable>, Rawable {
        private int next;
        private byte[] current;

        @Override
        public boolean hasNext() {
            return next < size();
        }

        @Override
        public Rawable next() {
            int at = next;
            if (at >= size()) {
                throw new NoSuchElementException();
            }
            next = at + 1;
            if (at < 3) {
                return get(at);
            }
            current = params[at - 3];
            return this;
        }

        @Override
        public byte[] getRaw() {
            return current;
        }
    }
}
