// Package chromium runs headless Chromium for the tests that look at
// packer's pages and pictures as a reader's browser shows them (chart's
// pictures, report's page). Tests only.
package chromium

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Find returns the chromium binary. Without one the test is skipped, but
// under CI, where make deps installs it, it fails: a skip there would pass
// a check that never ran.
func Find(t testing.TB) string {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; make deps installs it")
		}
		t.Skip("chromium not installed (make deps installs it)")
	}
	return browser
}

// Run loads the file page in headless Chromium with a w × h window and the
// extra arguments after the common ones, and returns what it wrote to
// standard output and standard error. Chromium failing, or taking over 90 s,
// fails the test. Every frame waits for the compositor to raster all of it:
// without that, a --screenshot of a tall page on a loaded machine (CI runs
// the packages side by side) can come out with its lower tiles blank.
func Run(t testing.TB, browser, page string, w, h int, extra ...string) (stdout, stderr string) {
	t.Helper()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
		"--run-all-compositor-stages-before-draw",
		"--user-data-dir=" + t.TempDir(),
		fmt.Sprintf("--window-size=%d,%d", w, h)}, extra...)
	cmd := exec.Command(browser, append(args, "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatal("chromium did not finish in 90 s")
	}
	return out.String(), errb.String()
}
