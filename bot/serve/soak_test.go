package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/serve"
	"github.com/patchbot/patchbot/internal/gerrittest"
	"github.com/patchbot/patchbot/internal/pgtest"
	"github.com/patchbot/patchbot/step/review"
)

// soakFor is how long TestServeSoak loads the processes; 0, the default,
// skips it, so that a plain 'go test' does not spend half an hour on it.
var soakFor = flag.Duration("soak", 0, "run TestServeSoak's load for `D`, 1m to 1h (scripts/soak)")

// The soak's bounds and rates.
const (
	soakMin, soakMax = time.Minute, time.Hour
	// soakRate is the deliveries a second, spread over the two
	// processes: 60% of them make a job (serveLoad's mix), so about
	// 2.4 jobs a second, which the processes' reply workers keep up with
	// on a loaded 2-core machine.
	soakRate = 4
	// soakSayEvery is how often a review message with a command is
	// posted on Gerrit; every fourth is a stranger's, the others a
	// trusted account's /patchbot help.
	soakSayEvery = 15 * time.Second
	// soakPerChange is how many of those go on one change before the
	// next: each is an update of the change, and so is its reply, and
	// Gerrit refuses a change more than 1,000 (change.maxUpdates).
	soakPerChange = 100
	// soakDrain bounds the wait, after the load, for the last jobs and
	// for the poll to find the last Gerrit message: a guard against a
	// hang, or a backlog the processes did not keep up with, not a
	// measure of speed.
	soakDrain = 2 * time.Minute
	// soakListLimit is the most jobs River lists at once: more than an
	// hour's load makes.
	soakListLimit = 10_000
)

// The flatness rule (soakFlat). A process's RSS rises while its heaps and
// pools grow to the load and then moves with the garbage collector, which
// lets the heap grow to about twice what is live before it collects: one
// sample says little, so the rule compares the highest of a stretch of
// them with the highest of another. The open files move with the
// connections in flight (webhooks, PostgreSQL, Gerrit, GitHub) by a few.
const (
	soakRSSFactor = 1.3
	soakRSSSlack  = 16 << 20 // bytes
	soakFDSlack   = 8
)

// TestServeSoak runs two real 'patchbot serve' processes, with workers, on
// one PostgreSQL database for -soak D (scripts/soak; skipped without it),
// under a steady load: signed GitHub deliveries at soakRate a second, to
// both processes in turn (serveLoad's mix: help commands, refusals,
// redeliveries, which go to the other process than the first delivery,
// bad signatures, comments without a command, and a freeze every hundred
// deliveries), answered by the fake GitHub; and, polled every 5 s from
// the real test Gerrit by whichever process leads the queue, a review
// message with a command every soakSayEvery on changes of the test's own
// hashtag. Every few seconds it samples each process's RSS (VmRSS in
// /proc/PID/status) and open files (the entries of /proc/PID/fd), and the
// test process's own, which holds the fakes and is not checked.
//
// In the end every job is there once, completed on its first attempt, and
// replied to once, on GitHub and on Gerrit; every delivery got the answer
// it should; and each process is flat by the rule of soakFlat. The samples
// are logged as a table, with a summary line per process.
func TestServeSoak(t *testing.T) {
	d := *soakFor
	if d == 0 {
		t.Skip("a soak of minutes: run scripts/soak [DURATION], or go test -run '^TestServeSoak$' ./bot/serve -args -soak 2m")
	}
	if d < soakMin || d > soakMax {
		t.Fatalf("-soak %v: want %v to %v", d, soakMin, soakMax)
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skipf("the soak reads the processes' usage in /proc: %v", err)
	}
	if deadline, ok := t.Deadline(); ok && time.Until(deadline) < d+soakDrain+3*time.Minute {
		t.Fatalf("-soak %v does not fit in the test's -timeout (%v left): give go test -timeout %v or more", d, time.Until(deadline).Round(time.Second), d+soakDrain+5*time.Minute)
	}
	gs := gerrittest.Get(t)
	db := pgtest.NewDB(t)
	setup := time.Now()

	// GitHub: the fixture's fake API and repositories. Its own command,
	// in this process, is on the database too, but only takes webhooks,
	// and is sent none.
	n := int(d.Seconds() * soakRate)
	f := startServeOn(t, db, 0, freezePRs(n)...)
	cases := serveLoad(n, func(int) string { return f.head })
	f.openPRs(loadPRs(cases)...)
	ds, want := loadDeliveries(cases)

	// Gerrit: accounts, and the changes the commands go on.
	suffix := gerrittest.Unique()
	trusted, _ := gerritAccount(t, gs, "serve-soak-trusted-"+suffix)
	stranger, strangerID := gerritAccount(t, gs, "serve-soak-stranger-"+suffix)
	hashtag := "serve-soak-" + suffix
	br := newGerritBranch(t, gs, "serve-soak-"+suffix, suffix)
	changes := make([]int, 1+int(d/soakSayEvery)/soakPerChange)
	for i := range changes {
		changes[i] = br.change(t, i+2, hashtag, nil) // N = 1 is the base's
	}

	// The two processes: the fixture's GitHub and the Gerrit server in
	// one configuration (serveTestConfig is the review section, which
	// the server joins), each with a state directory (its copy of the
	// poll's cursor) and work areas of its own, as two machines.
	root := t.TempDir()
	cfg := filepath.Join(root, "patchbot.yaml")
	if err := os.WriteFile(cfg, []byte(serveTestConfig+"  gerrit: "+gs.URL+"\n"+serveGerritConfig("", trusted.User, hashtag)), 0o666); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(root, "tmp") // what a job leaves goes with the test
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	var ps []*serveProc
	var to []*serveFixture // the fixture, talking to each process
	for i := range 2 {
		dir := filepath.Join(root, strconv.Itoa(i+1))
		env := append(slices.Clone(f.env), "TMPDIR="+tmp, "XDG_STATE_HOME="+filepath.Join(dir, "state"),
			review.EnvGerritUser+"="+gs.User, review.EnvGerritPassword+"="+gs.Password)
		p := startServeProc(t, fmt.Sprintf("serve %d", i+1), env, "-config", cfg, "-db", db, "-listen", "127.0.0.1:0",
			"-workers", "1", "-unsafe-no-sandbox", "-poll", "5s", "-work", filepath.Join(dir, "work"))
		ps = append(ps, p)
		g := *f
		g.addr = p.addr
		to = append(to, &g)
	}
	ctx := context.Background()
	q, err := queue.Open(ctx, db, nil) // for the queue's depth and, at the end, its jobs
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(ctx)
	t.Logf("set up in %v: PostgreSQL database, Gerrit changes %v (hashtag %s), %d deliveries to send", time.Since(setup).Round(time.Millisecond), changes, hashtag, n)

	// The load: deliveries from a goroutine of their own; the Gerrit
	// messages and the samples from this one, which may fail the test.
	var ss []soakSample
	defer func() { logSoak(t, ss, ps, d) }()
	pids := []int{ps[0].cmd.Process.Pid, ps[1].cmd.Process.Pid, os.Getpid()}
	began := time.Now()
	sample := func(after bool) {
		t.Helper()
		s := soakSample{at: time.Since(began), after: after}
		var err error
		if s.depth, err = q.Depth(ctx, soakListLimit); err != nil {
			t.Fatalf("the queue's depth: %v", err)
		}
		for _, pid := range pids {
			u, err := readUsage(pid)
			if err != nil {
				t.Fatal(err)
			}
			s.usage = append(s.usage, u)
		}
		ss = append(ss, s)
	}
	var results []loadResult
	stop, sent := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sent)
		results = soakSend(t, ds, to, stop)
	}()
	defer func() {
		// On a failure before the load's end, no delivery after the test.
		close(stop)
		<-sent
	}()
	every := max(5*time.Second, d/200)
	sampleTick, sayTick := time.NewTicker(every), time.NewTicker(soakSayEvery)
	defer sampleTick.Stop()
	defer sayTick.Stop()
	end := time.NewTimer(d)
	said := 0
	helps := map[int]int{}    // change → trusted helps posted on it
	refused := map[int]bool{} // changes the stranger asked on: one refusal each
	sample(false)
	for loading := true; loading; {
		select {
		case <-sampleTick.C:
			sample(false)
		case <-sayTick.C:
			if time.Since(began) > d-5*time.Second {
				continue // leave the poll time to find it in the load
			}
			c := changes[said/soakPerChange]
			if said%4 == 3 {
				gerritSay(t, stranger, c, fmt.Sprintf("/patchbot bench -count %d", said))
				refused[c] = true
			} else {
				gerritSay(t, trusted, c, fmt.Sprintf("Soak %d.\n\n/patchbot help", said))
				helps[c]++
			}
			said++
		case <-end.C:
			loading = false
		}
	}
	if time.Since(began)-ss[len(ss)-1].at > every/2 {
		sample(false) // the load's end
	}
	<-sent
	sendTook := time.Since(began)

	// The drain: every job finished, every reply posted.
	gerritWant := len(refused)
	for _, h := range helps {
		gerritWant += h
	}
	gerritReplies := func() int {
		n := 0
		for _, c := range changes {
			n += patchbotMessages(t, gs, c)
		}
		return n
	}
	for deadline := time.Now().Add(soakDrain); ; time.Sleep(2 * time.Second) {
		depth, err := q.Depth(ctx, soakListLimit)
		if err != nil {
			t.Fatal(err)
		}
		gh, gr := len(f.fake.Comments()), gerritReplies()
		if depth == 0 && gh == len(want) && gr == gerritWant {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hung, or fell behind: %v after the load, %d jobs waiting or running, %d GitHub replies of %d, %d Gerrit replies of %d", soakDrain, depth, gh, len(want), gr, gerritWant)
		}
	}
	drained := time.Since(began) - d
	sample(true) // in the table, not in the rule
	for _, p := range ps {
		p.stop()
	}

	// Every delivery's answer.
	wantAnswers(t, cases, results, len(want))
	lines := 0
	for _, p := range ps {
		lines += strings.Count(p.log.String(), " msg=webhook ")
	}
	if lines != n {
		t.Errorf("%d webhook log lines for %d deliveries", lines, n)
	}

	// Every job once, completed on its first attempt.
	jobs, err := q.Jobs(ctx, soakListLimit)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	gerritJobs := 0
	for _, j := range jobs {
		id := fmt.Sprintf("%s %s @ %s", j.Command, j.Review, j.Revision)
		switch {
		case seen[id]:
			t.Errorf("two jobs %s", id)
		case j.State != "completed" || j.Attempt != 1:
			t.Errorf("job %s: %s on attempt %d, errors %+v", id, j.State, j.Attempt, j.Errors)
		case strings.HasPrefix(j.Review, "gerrit:"):
			gerritJobs++
		case want[id].job == "":
			t.Errorf("job %s: not one of the deliveries'", id)
		}
		seen[id] = true
	}
	if len(jobs) != len(want)+gerritWant || gerritJobs != gerritWant {
		t.Errorf("%d jobs, %d of them Gerrit's; want %d and %d", len(jobs), gerritJobs, len(want)+gerritWant, gerritWant)
	}

	// Every job replied to once: on GitHub, by its marker; on Gerrit, by
	// its tag.
	markerRE := regexp.MustCompile(`^<!-- patchbot:(\S+) -->\n`)
	replies := map[string]int{} // "PR kind"
	for _, c := range f.fake.Comments() {
		m := markerRE.FindStringSubmatch(c.Body)
		if m == nil {
			t.Errorf("a comment on #%d without a marker: %q", c.Issue, c.Body)
			continue
		}
		kind := m[1]
		if j := jobKind.FindStringSubmatch(kind); j != nil {
			kind = j[1] + j[2] // a job's reply, by its command
		}
		replies[fmt.Sprintf("%d %s", c.Issue, kind)]++
	}
	for id, c := range want {
		if k := fmt.Sprintf("%d %s", c.pr, c.kind); replies[k] != 1 {
			t.Errorf("job %s: %d replies of kind %s on #%d, want 1", id, replies[k], c.kind, c.pr)
		}
	}
	if n, m := len(f.fake.Comments()), f.fake.Count("POST "); n != len(want) || m != len(want) {
		t.Errorf("%d GitHub comments in %d posts; want %d, one per job", n, m, len(want))
	}
	if n := f.fake.Count("PATCH "); n != 0 {
		t.Errorf("%d GitHub comments edited, want none", n)
	}
	for _, c := range changes {
		tags := map[string]int{}
		help := 0
		for _, m := range gs.Messages(t, strconv.Itoa(c)) {
			if strings.HasPrefix(m.Tag, review.Tag("")) {
				tags[m.Tag]++
			}
			if strings.HasPrefix(m.Tag, review.Tag("help-")) {
				help++
			}
		}
		for tag, k := range tags {
			if k != 1 {
				t.Errorf("change %d: %d messages tagged %s, want 1", c, k, tag)
			}
		}
		if help != helps[c] {
			t.Errorf("change %d: %d help replies for %d helps asked", c, help, helps[c])
		}
		refusal := tags[review.Tag("refusal-"+strconv.Itoa(strangerID))]
		if refused[c] && refusal != 1 || !refused[c] && refusal != 0 || len(tags) != help+refusal {
			t.Errorf("change %d: patchbot's messages %v; want %d help replies and, if the stranger asked (%v), one refusal", c, tags, helps[c], refused[c])
		}
	}
	for _, p := range ps {
		for _, s := range []string{serveSecret, serveToken, gs.Password, trusted.Password, stranger.Password, "sha256="} {
			if strings.Contains(p.log.String(), s) {
				t.Errorf("%s's log holds %q", p.name, s)
			}
		}
	}

	// Flat.
	for i, p := range ps {
		if _, _, broken := soakFlat(ss, i, d); len(broken) > 0 {
			t.Errorf("%s (pid %d) is not flat: %s", p.name, p.cmd.Process.Pid, strings.Join(broken, "; "))
		}
	}
	var took []string
	for _, p := range ps {
		took = append(took, fmt.Sprintf("%s %d jobs and %d Gerrit messages", p.name, len(p.lines(`"job done"`)), len(p.lines(`"gerrit message"`))))
	}
	t.Logf("%d deliveries in %v (%.1f/s; p50 %v, p99 %v), %d Gerrit messages; %d GitHub and %d Gerrit jobs, each done and replied to once, drained %v after the load; %s",
		n, sendTook.Round(time.Second), float64(n)/sendTook.Seconds(), percentile(results, 50).Round(100*time.Microsecond), percentile(results, 99).Round(100*time.Microsecond), said,
		len(want), gerritWant, drained.Round(time.Second), strings.Join(took, ", "))
}

// soakSend sends the deliveries at soakRate a second, delivery i to the
// command to[i%len(to)], but a redelivery to another command than its
// first delivery's, where only the queue's uniqueness can tell it is
// one, until all are sent or stop is closed. Each is sent in a goroutine of its own (an open loop, as GitHub
// sends) and written as it is sent (restamp); a redelivery is the bytes
// of its first. It returns the answers once all came, in the deliveries'
// order.
func soakSend(t *testing.T, ds []delivery, to []*serveFixture, stop <-chan struct{}) []loadResult {
	out := make([]loadResult, len(ds))
	type first struct {
		d  delivery
		to int
	}
	firsts := map[string]first{}
	tick := time.NewTicker(time.Second / soakRate)
	defer tick.Stop()
	var wg sync.WaitGroup
	for i, d := range ds {
		if i > 0 {
			select {
			case <-tick.C:
			case <-stop:
				wg.Wait()
				return out
			}
		}
		c := i % len(to)
		if fd, again := firsts[d.id]; again {
			d, c = fd.d, (fd.to+1)%len(to)
		} else {
			d = restamp(t, d)
			firsts[d.id] = first{d, c}
		}
		wg.Go(func() {
			start := time.Now()
			status, text, err := to[c].post(d)
			if err != nil {
				t.Errorf("delivery %s: %v", d.id, err)
				return
			}
			out[i] = loadResult{status: status, text: text, latency: time.Since(start)}
		})
	}
	wg.Wait()
	return out
}

// restamp returns d as GitHub writes it when it sends it: the comment's
// times in the payload now, signed again. serveLoad writes all the
// deliveries at the start, and serve ignores a run command (a freeze)
// whose comment is older than serve.DefaultMaxCommentAge, which a long
// soak's would be. A delivery not signed with the secret is left as it is:
// it is refused before its payload is read.
func restamp(t *testing.T, d delivery) delivery {
	if d.sig != serve.Sign([]byte(serveSecret), d.body) {
		return d
	}
	var p map[string]any
	if err := json.Unmarshal(d.body, &p); err != nil {
		t.Errorf("delivery %s: %v", d.id, err)
		return d
	}
	c, ok := p["comment"].(map[string]any)
	if !ok {
		t.Errorf("delivery %s: no comment in %s", d.id, d.body)
		return d
	}
	now := time.Now().UTC().Format(time.RFC3339)
	c["created_at"], c["updated_at"] = now, now
	body, err := json.Marshal(p)
	if err != nil {
		t.Errorf("delivery %s: %v", d.id, err)
		return d
	}
	d.body, d.sig = body, serve.Sign([]byte(serveSecret), body)
	return d
}

// A soakSample is one look at the processes.
type soakSample struct {
	at    time.Duration // since the load began
	after bool          // after the load's end: the drain's
	depth int           // jobs waiting or running
	usage []procUsage   // the serve processes', then the test process's
}

// A procUsage is what a process holds.
type procUsage struct {
	rss int64 // bytes resident (VmRSS)
	fds int   // open file descriptors
}

// readUsage reads a process's usage from /proc.
func readUsage(pid int) (procUsage, error) {
	var u procUsage
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return u, fmt.Errorf("/proc/%d/status: VmRSS:%s: %v", pid, rest, err)
			}
			u.rss = kb << 10
		}
	}
	if u.rss == 0 {
		return u, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return u, err
	}
	u.fds = len(fds)
	return u, nil
}

// soakFlat applies the flatness rule to process i of the samples of a load
// of d. The first fifth is the warm-up, and is not looked at; of the rest,
// the highest RSS in the last quarter must be at most soakRSSFactor times
// the highest in the first quarter, plus soakRSSSlack, and the most open
// files in the last quarter at most soakFDSlack more than the most in the
// first. Samples after the load (the drain's) are not looked at either. It
// returns the highest usage in the two quarters and what broke the rule.
func soakFlat(ss []soakSample, i int, d time.Duration) (first, last procUsage, broken []string) {
	warm := d / 5
	quarter := (d - warm) / 4
	var nf, nl int
	for _, s := range ss {
		u := s.usage[i]
		switch {
		case s.after:
		case s.at >= warm && s.at < warm+quarter:
			nf++
			first.rss, first.fds = max(first.rss, u.rss), max(first.fds, u.fds)
		case s.at >= d-quarter:
			nl++
			last.rss, last.fds = max(last.rss, u.rss), max(last.fds, u.fds)
		}
	}
	if nf == 0 || nl == 0 {
		return first, last, []string{fmt.Sprintf("%d samples in the first quarter after the warm-up and %d in the last: too few", nf, nl)}
	}
	if limit := int64(soakRSSFactor*float64(first.rss)) + soakRSSSlack; last.rss > limit {
		broken = append(broken, fmt.Sprintf("RSS up to %.1f MiB in the last quarter, more than %.1f × %.1f + %d = %.1f MiB", mib(last.rss), soakRSSFactor, mib(first.rss), soakRSSSlack>>20, mib(limit)))
	}
	if last.fds > first.fds+soakFDSlack {
		broken = append(broken, fmt.Sprintf("up to %d open files in the last quarter, more than %d + %d", last.fds, first.fds, soakFDSlack))
	}
	return first, last, broken
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// logSoak logs the samples as a table, and a summary line per serve
// process: its usage at the first sample, after the warm-up, at the end of
// the load and at most, and the rule's figures.
func logSoak(t *testing.T, ss []soakSample, ps []*serveProc, d time.Duration) {
	if len(ss) == 0 {
		return
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "time\tqueue\t")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s MiB\tfds\t", p.name)
	}
	fmt.Fprint(tw, "test MiB\tfds\t\n")
	for _, s := range ss {
		at := s.at.Round(time.Second).String()
		if s.after {
			at += " (drained)"
		}
		fmt.Fprintf(tw, "%s\t%d\t", at, s.depth)
		for _, u := range s.usage {
			fmt.Fprintf(tw, "%.1f\t%d\t", mib(u.rss), u.fds)
		}
		fmt.Fprint(tw, "\n")
	}
	tw.Flush()
	t.Logf("samples (queue: jobs waiting or running):\n%s", b.String())
	for i, p := range ps {
		var warm, end, top procUsage
		for _, s := range ss {
			u := s.usage[i]
			if !s.after {
				end = u
			}
			if warm.rss == 0 && s.at >= d/5 {
				warm = u
			}
			top.rss, top.fds = max(top.rss, u.rss), max(top.fds, u.fds)
		}
		first, last, broken := soakFlat(ss, i, d)
		verdict := "flat"
		if len(broken) > 0 {
			verdict = "NOT flat: " + strings.Join(broken, "; ")
		}
		t.Logf("%s: RSS MiB start %.1f, after warm-up %.1f, end %.1f, max %.1f; FDs start %d, after warm-up %d, end %d, max %d; highest of the first and last quarters after warm-up: %.1f and %.1f MiB, %d and %d FDs: %s",
			p.name, mib(ss[0].usage[i].rss), mib(warm.rss), mib(end.rss), mib(top.rss),
			ss[0].usage[i].fds, warm.fds, end.fds, top.fds, mib(first.rss), mib(last.rss), first.fds, last.fds, verdict)
	}
}

// TestSoakFlat: the flatness rule on made-up samples of a 100 s load.
func TestSoakFlat(t *testing.T) {
	const d = 100 * time.Second
	series := func(usage func(at time.Duration) procUsage) []soakSample {
		var ss []soakSample
		for at := time.Duration(0); at <= d+10*time.Second; at += 5 * time.Second {
			ss = append(ss, soakSample{at: at, after: at > d, usage: []procUsage{usage(at)}})
		}
		return ss
	}
	const m = 1 << 20
	for _, tc := range []struct {
		name   string
		usage  func(at time.Duration) procUsage
		broken int
	}{
		{"flat", func(time.Duration) procUsage { return procUsage{40 * m, 20} }, 0},
		{"warm-up", func(at time.Duration) procUsage {
			if at < d/5 {
				return procUsage{10 * m, 10}
			}
			return procUsage{40 * m, 20}
		}, 0},
		{"GC saw-tooth", func(at time.Duration) procUsage {
			return procUsage{int64(40+20*((at/time.Second)%3)) * m, 20 + int(at/time.Second)%4}
		}, 0},
		{"a spike after the load", func(at time.Duration) procUsage {
			if at > d {
				return procUsage{400 * m, 200}
			}
			return procUsage{40 * m, 20}
		}, 0},
		{"RSS leak", func(at time.Duration) procUsage { return procUsage{int64(40*m) + int64(at/time.Second)*m, 20} }, 1},
		{"fd leak", func(at time.Duration) procUsage { return procUsage{40 * m, 20 + int(at/(5*time.Second))} }, 1},
		{"both", func(at time.Duration) procUsage {
			return procUsage{int64(at/time.Second) * 2 * m, int(at / time.Second)}
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, last, broken := soakFlat(series(tc.usage), 0, d)
			if len(broken) != tc.broken {
				t.Errorf("first %+v, last %+v: broken %q, want %d broken", first, last, broken, tc.broken)
			}
		})
	}
	if _, _, broken := soakFlat(series(func(time.Duration) procUsage { return procUsage{m, 1} })[:3], 0, d); len(broken) != 1 || !strings.Contains(broken[0], "too few") {
		t.Errorf("three samples: %q, want too few", broken)
	}
}
