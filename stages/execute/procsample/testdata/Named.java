// Named starts three threads named sample-worker-1 .. sample-worker-3 that
// sleep, prints "ready" once they run, and waits to be killed. The JVM gives
// its threads' Java names to the kernel, so /proc/<pid>/task/<tid>/comm
// shows them: the procsample tests count them with ^sample-worker-.
//
// Run as a single source file: java Named.java
public class Named {
    public static void main(String[] args) throws Exception {
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(3);
        for (int i = 1; i <= 3; i++) {
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    // exit
                }
            }, "sample-worker-" + i);
            t.setDaemon(true);
            t.start();
        }
        started.await();
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
