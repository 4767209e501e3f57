import io.latchkey.*;
import java.lang.management.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import redis.clients.jedis.*;
import redis.clients.jedis.params.SetParams;
public class Cpu {
  static ThreadMXBean mx = ManagementFactory.getThreadMXBean();
  static byte[] OK = "OK".getBytes();
  public static void main(String[] a) throws Exception {
    String mode = a[0]; int n = 30000;
    int[] ports = mode.endsWith("redlock") ? new int[]{7101,7102,7103} : new int[]{7100};
    for (int round = 0; round < 3; round++) {
    if (mode.startsWith("latchkey")) {
      String uri = ports.length == 1 ? "redis://127.0.0.1:7100" : "redlock://127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103";
      try (LockClient c = Latchkey.connect(uri)) {
        DistributedLock l = c.lock("cpu-test-" + round);
        for (int i = 0; i < n; i++) { try (LockHandle h = l.acquire(java.time.Duration.ofSeconds(5))) { } }
        long c0 = mx.getCurrentThreadCpuTime(); long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) { try (LockHandle h = l.acquire(java.time.Duration.ofSeconds(5))) { } }
        report(mode, c0, t0, n);
      }
    } else {
      List<JedisPool> pools = new ArrayList<>();
      for (int p : ports) pools.add(new JedisPool("127.0.0.1", p));
      byte[] sha; try (Jedis j = pools.get(0).getResource()) { sha = j.scriptLoad("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0").getBytes(); }
      for (JedisPool p : pools) try (Jedis j = p.getResource()) { j.scriptLoad("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"); }
      byte[] key = ("raw-cpu-" + round).getBytes(), owner = "owner-x".getBytes(), px = "30000".getBytes(), one = "1".getBytes();
      for (int w = 0; w < 2; w++) {
        long c0 = mx.getCurrentThreadCpuTime(); long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
          if (pools.size() == 1) {
            try (Jedis j = pools.get(0).getResource()) { j.set(key, owner, SetParams.setParams().nx().px(30000)); }
            try (Jedis j = pools.get(0).getResource()) { j.evalsha(sha, 1, key, owner); }
          } else {
            pipelined(pools, Protocol.Command.SET, key, owner, "NX".getBytes(), "PX".getBytes(), px);
            pipelined(pools, Protocol.Command.EVALSHA, sha, one, key, owner);
          }
        }
        if (w == 1) report(mode, c0, t0, n);
      }
      pools.forEach(JedisPool::close);
    }
    }
  }
  static void report(String mode, long c0, long t0, int n) {
    System.out.printf("%s: %.1f us per cycle, client thread CPU %.1f us per cycle%n", mode, (System.nanoTime()-t0)/1000.0/n, (mx.getCurrentThreadCpuTime()-c0)/1000.0/n);
  }
  static Object[] pipelined(List<JedisPool> pools, Protocol.Command command, byte[]... args) {
    int n = pools.size(); Jedis[] b = new Jedis[n]; Object[] r = new Object[n];
    try {
      for (int i = 0; i < n; i++) { b[i] = pools.get(i).getResource(); Connection c = b[i].getConnection(); c.sendCommand(command, args); c.getMany(0); }
      for (int i = 0; i < n; i++) r[i] = b[i].getConnection().getOne();
    } finally { for (Jedis j : b) if (j != null) j.close(); }
    return r;
  }
}
