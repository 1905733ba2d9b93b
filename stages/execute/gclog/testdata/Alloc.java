// Alloc allocates garbage at a steady rate for a fixed time while keeping a
// ring of live objects, so that every collector runs a handful of cycles in a
// small heap. It produces the JVM GC log fixtures in this directory; see
// README.md for the exact commands.
//
// Usage: java Alloc [millis] [MB per second]
public class Alloc {
    public static void main(String[] args) throws Exception {
        long millis = args.length > 0 ? Long.parseLong(args[0]) : 1500;
        long mbPerSec = args.length > 1 ? Long.parseLong(args[1]) : 200;
        byte[][] ring = new byte[4096][];
        long start = System.nanoTime();
        long end = start + millis * 1_000_000L;
        long sum = 0;
        int i = 0;
        while (System.nanoTime() < end) {
            byte[] b = new byte[1024 + (i % 16) * 512];
            b[i % b.length] = (byte) i;
            ring[i % ring.length] = b;
            sum += b.length;
            i++;
            // Throttle: stay at or under mbPerSec.
            long allowed = (System.nanoTime() - start) * mbPerSec / 1000; // bytes
            if (sum > allowed) {
                Thread.sleep(1);
            }
        }
        System.out.println("allocated " + sum + " bytes in " + i + " arrays");
    }
}
