package io.latchkey.tck.selftest;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHandle;
import io.latchkey.LockLoss;
import io.latchkey.LockOptions;
import io.latchkey.LockTimeoutException;
import io.latchkey.MultiLock;
import io.latchkey.MultiLockHandle;
import io.latchkey.recipes.ExclusiveTask;
import io.latchkey.recipes.ExclusiveTasks;
import io.latchkey.recipes.TaskHandle;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/*
 * Deliberately broken exclusive tasks and multi-locks for RecipeSelfTest, each breaking one promise a rule checks.
 * The exclusive-task ones wrap the real recipe; the multi-locks are small stand-ins built on the client's locks.
 */
final class BrokenRecipes {
    private BrokenRecipes() {}

    /** Exclusive tasks whose task keeps running, with a handle that always says valid, after the lock is lost. */
    static ExclusiveTasks ignoringLoss(ExclusiveTasks real) {
        return new Delegating(real) {
            @Override
            public TaskHandle start(String key, ExclusiveTask task) {
                return real.start(key, handle -> {
                    Thread worker = new Thread(() -> {
                        try {
                            task.run(alwaysValid(handle));
                        } catch (Exception e) {
                            // the broken recipe swallows everything
                        }
                    });
                    worker.start();
                    while (worker.isAlive()) {
                        try {
                            worker.join();
                        } catch (InterruptedException e) {
                            // the cancellation is swallowed: the task runs on
                        }
                    }
                });
            }
        };
    }

    /** Exclusive tasks whose stop(key) says yes and does nothing. */
    static ExclusiveTasks stopKeepingTheLock(ExclusiveTasks real) {
        return new Delegating(real) {
            @Override
            public boolean stop(String key) {
                return true;
            }
        };
    }

    /** Exclusive tasks whose holding() always says nothing. */
    static ExclusiveTasks forgettingWhatTheyHold(ExclusiveTasks real) {
        return new Delegating(real) {
            @Override
            public Set<String> holding() {
                return Set.of();
            }
        };
    }

    /** Exclusive tasks whose close() does nothing. */
    static ExclusiveTasks closingNothing(ExclusiveTasks real) {
        return new Delegating(real) {
            @Override
            public void close() {}
        };
    }

    /** Exclusive tasks that lock a name of their own per instance: every instance runs every key. */
    static ExclusiveTasks runningWithoutTheSharedLock(ExclusiveTasks real) {
        String mine = "#" + System.identityHashCode(real);
        return new Delegating(real) {
            @Override
            public TaskHandle start(String key, ExclusiveTask task) {
                return real.start(key + mine, task);
            }
        };
    }

    private static LockHandle alwaysValid(LockHandle real) {
        return (LockHandle) Proxy.newProxyInstance(
                LockHandle.class.getClassLoader(), new Class<?>[] {LockHandle.class}, (proxy, method, args) -> {
                    if (method.getName().equals("isValid")) {
                        return true;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private abstract static class Delegating implements ExclusiveTasks {
        final ExclusiveTasks real;

        Delegating(ExclusiveTasks real) {
            this.real = real;
        }

        @Override
        public TaskHandle start(String key, ExclusiveTask task) {
            return real.start(key, task);
        }

        @Override
        public boolean stop(String key) {
            return real.stop(key);
        }

        @Override
        public Set<String> holding() {
            return real.holding();
        }

        @Override
        public Set<String> lockedEverywhere() {
            return real.lockedEverywhere();
        }

        @Override
        public void close() {
            real.close();
        }
    }

    /** How a stand-in multi-lock is broken. */
    enum MultiLockFlaw {
        /** Takes the parts in the order given, not a canonical one: crossed orders deadlock. */
        ARGUMENT_ORDER,
        /** Keeps the parts it took when a later part times out. */
        KEEPS_PARTS_ON_TIMEOUT,
        /** Its combined handle stays valid when a part is lost. */
        STAYS_VALID_AFTER_A_LOSS,
        /** Accepts no names and repeated names without a word. */
        NO_INPUT_CHECKS,
        /** release() says yes and releases nothing. */
        RELEASE_RELEASES_NOTHING,
        /** acquire(wait) makes one attempt and ignores the wait: a part that frees a moment later is never taken. */
        NEVER_WAITS
    }

    static MultiLock multiLock(MultiLockFlaw flaw, LockClient client, List<String> names, LockOptions options) {
        if (flaw != MultiLockFlaw.NO_INPUT_CHECKS
                && (names.isEmpty() || names.stream().distinct().count() < names.size())) {
            throw new IllegalArgumentException("lockAll names must be distinct and at least one: " + names);
        }
        List<String> order = flaw == MultiLockFlaw.ARGUMENT_ORDER
                ? names
                : names.stream().sorted().toList();
        List<DistributedLock> locks =
                order.stream().map(n -> client.lock(n, options)).toList();
        return new MultiLock() {
            @Override
            public List<String> names() {
                return order;
            }

            @Override
            public Optional<MultiLockHandle> tryAcquire() {
                try {
                    return tryAcquire(Duration.ZERO);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            }

            @Override
            public Optional<MultiLockHandle> tryAcquire(Duration wait) throws InterruptedException {
                try {
                    return Optional.of(acquire(wait));
                } catch (LockTimeoutException e) {
                    return Optional.empty();
                }
            }

            @Override
            public MultiLockHandle acquire(Duration wait) throws InterruptedException {
                long deadline = System.nanoTime() + (flaw == MultiLockFlaw.NEVER_WAITS ? 0 : wait.toNanos());
                List<LockHandle> taken = new ArrayList<>();
                try {
                    for (DistributedLock lock : locks) {
                        taken.add(lock.acquire(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
                    }
                } catch (LockTimeoutException | InterruptedException e) {
                    if (flaw != MultiLockFlaw.KEEPS_PARTS_ON_TIMEOUT) {
                        taken.forEach(LockHandle::close);
                    }
                    throw e;
                }
                return handle(flaw, taken);
            }

            @Override
            public MultiLockHandle acquire() throws InterruptedException {
                return acquire(Duration.ofDays(1));
            }
        };
    }

    private static MultiLockHandle handle(MultiLockFlaw flaw, List<LockHandle> parts) {
        CompletableFuture<LockLoss> lost = new CompletableFuture<>();
        parts.forEach(p -> p.onLost(lost::complete));
        return new MultiLockHandle() {
            @Override
            public List<LockHandle> handles() {
                return parts;
            }

            @Override
            public Map<String, Long> fencingTokens() {
                Map<String, Long> t = new LinkedHashMap<>();
                parts.forEach(p -> t.put(p.name(), p.fencingToken()));
                return t;
            }

            @Override
            public boolean isValid() {
                return flaw == MultiLockFlaw.STAYS_VALID_AFTER_A_LOSS
                        || parts.stream().allMatch(LockHandle::isValid);
            }

            @Override
            public Instant validUntil() {
                return parts.get(0).validUntil();
            }

            @Override
            public Duration remaining() {
                return parts.get(0).remaining();
            }

            @Override
            public CompletionStage<LockLoss> lost() {
                return lost;
            }

            @Override
            public void onLost(Consumer<? super LockLoss> listener) {
                lost.thenAccept(listener);
            }

            @Override
            public boolean release() {
                if (flaw == MultiLockFlaw.RELEASE_RELEASES_NOTHING) {
                    return true;
                }
                boolean all = true;
                for (int i = parts.size() - 1; i >= 0; i--) {
                    all &= parts.get(i).release();
                }
                return all;
            }

            @Override
            public void close() {
                parts.forEach(LockHandle::close);
            }
        };
    }
}
