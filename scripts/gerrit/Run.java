// Run starts Gerrit's init or daemon program from the server classes that
// scripts/gerrit-test-server puts in DIST/WEB-INF/lib. The release WAR's own
// launcher does the same (both programs have an instance main that returns
// an exit status); we need our own because the WAR is not obtainable here.
//
// Usage: java -cp LAUNCHERDIR:DIST/WEB-INF/lib/* Run init|daemon ARGS...
public class Run {
  public static void main(String[] a) throws Exception {
    if (a.length == 0) {
      System.err.println("usage: Run init|daemon [args...]");
      System.exit(2);
    }
    String[] rest = java.util.Arrays.copyOfRange(a, 1, a.length);
    int rc;
    switch (a[0]) {
      case "init":
        rc = new com.google.gerrit.pgm.Init().main(rest);
        break;
      case "daemon":
        rc = new com.google.gerrit.pgm.Daemon().main(rest);
        break;
      default:
        System.err.println("Run: unknown program " + a[0] + " (want init or daemon)");
        rc = 2;
    }
    System.exit(rc);
  }
}
