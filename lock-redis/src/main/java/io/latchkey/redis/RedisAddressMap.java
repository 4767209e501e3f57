package io.latchkey.redis;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.HostAndPortMapper;

/**
 * The {@code addressMap} setting (redis-sentinel:// and redis-cluster://): where to connect instead of a data node's
 * address as the Sentinels or the slot map announce it. Its text form, its checks, and Jedis's mapper made of it, in
 * one place; RedisSettings holds the checked map. Stateless.
 */
final class RedisAddressMap {
    private RedisAddressMap() {}

    /** {@code announced=reachable,announced=reachable}, each address checked. */
    static Map<String, String> parse(String text) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String pair : text.split(",", -1)) {
            int eq = pair.indexOf('=');
            if (eq < 0 || pair.indexOf('=', eq + 1) >= 0) {
                throw new IllegalArgumentException(RedisSettings.BACKEND + " setting addressMap must be announced="
                        + "reachable pairs separated by commas, such as 10.0.0.5:6379=redis-a.example:16379, was '"
                        + text + "'");
            }
            String announced = pair.substring(0, eq).strip();
            if (map.put(announced, pair.substring(eq + 1).strip()) != null) {
                throw new IllegalArgumentException(RedisSettings.BACKEND + " setting addressMap maps " + announced
                        + " twice, in '" + text + "'");
            }
        }
        return check(map);
    }

    /** An immutable copy whose every key and value is {@code host:port} with a port from 1 to 65535. */
    static Map<String, String> check(Map<String, String> announcedToReachable) {
        if (announcedToReachable == null) {
            throw new IllegalArgumentException("addressMap must not be null; pass an empty map for none");
        }
        Map<String, String> copy = new LinkedHashMap<>();
        announcedToReachable.forEach((announced, reachable) ->
                copy.put(hostPort(announced, "an announced address"), hostPort(reachable, "a reachable address")));
        return Collections.unmodifiableMap(copy);
    }

    /**
     * Jedis's mapper: every connection to an announced data node goes where the map says (Jedis asks at each socket
     * it opens); an address not in the map is used as announced.
     */
    static HostAndPortMapper mapper(Map<String, String> announcedToReachable) {
        Map<String, HostAndPort> map = new HashMap<>();
        announcedToReachable.forEach((announced, reachable) -> map.put(announced, HostAndPort.from(reachable)));
        return announced -> map.get(announced.getHost() + ":" + announced.getPort());
    }

    private static String hostPort(String text, String what) {
        int colon = text == null ? -1 : text.lastIndexOf(':');
        if (colon > 0 && colon < text.length() - 1 && text.strip().equals(text)) {
            try {
                int port = Integer.parseInt(text.substring(colon + 1));
                if (port >= 1 && port <= 65535) {
                    return text;
                }
            } catch (NumberFormatException e) {
                // the message below
            }
        }
        throw new IllegalArgumentException("addressMap: " + what + " must be host:port with a port from 1 to"
                + " 65535, such as 10.0.0.5:6379, was '" + text + "'");
    }
}
