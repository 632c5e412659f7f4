//go:build unix

package procgroup

import (
	"bufio"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestOwn: cancelling a command started with Own kills the child it
// started too, and KillRest leaves nothing of the group.
func TestOwn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 60 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := cmd.Wait(); err == nil {
		t.Error("a cancelled command exited 0")
	}
	KillRest(cmd)
	// The child is the shell's, reparented when the shell died: gone, or
	// at most a zombie that is no longer running. (It may be reaped
	// between the two looks: ps then lists nothing.)
	if err := syscall.Kill(child, 0); err == nil {
		if data, _ := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(child)).Output(); len(strings.TrimSpace(string(data))) > 0 && !strings.HasPrefix(strings.TrimSpace(string(data)), "Z") {
			t.Errorf("the child %d is still running (%q) after the cancel", child, data)
		}
	}
}
