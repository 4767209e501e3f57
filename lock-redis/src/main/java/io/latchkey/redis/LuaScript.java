package io.latchkey.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/*
 * One Lua script: its text and its SHA-1, computed here, so the client runs EVALSHA from the first call and
 * sends the text (EVAL, which also caches it on the server) only when the server answers NOSCRIPT, after
 * a restart or SCRIPT FLUSH. Immutable.
 */
final class LuaScript {
    final String name;
    final byte[] body;
    final byte[] sha;
    /** The SHA as a command argument, made once (see RedisNode.evalsha). */
    final redis.clients.jedis.args.Rawable shaArgument;

    LuaScript(String name, String body) {
        this.name = name;
        this.body = body.getBytes(StandardCharsets.UTF_8);
        this.sha = sha1Hex(this.body);
        this.shaArgument = RedisNode.argument(sha);
    }

    private static byte[] sha1Hex(byte[] data) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(data);
            StringBuilder sb = new StringBuilder(40);
            for (byte b : digest) {
                sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return sb.toString().getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every Java platform", e);
        }
    }

    @Override
    public String toString() {
        return "LuaScript[" + name + ", sha " + new String(sha, StandardCharsets.US_ASCII) + "]";
    }
}
