package work

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/internal/abbrev"
	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// Bounds of a failure reply's error: its first line, and the excerpt of
// the lines after it (a benchmark's or a build's output, which the
// change's author controls).
const (
	maxFailLine     = 300
	maxExcerptLines = 10
	maxExcerpt      = 1000
)

// failPostTimeout is how long posting a failure reply may take, from a
// context of its own: the job's may have ended with its time limit. It
// ends rescueSlack before the job's queue.Job.RescueAt if that is sooner,
// so that the job has returned before the queue may take it for the job
// of a dead process and run it again beside the reply.
const (
	failPostTimeout = 2 * time.Minute
	rescueSlack     = 5 * time.Second
)

// replyFailure answers a run job that failed for good, with failed, on
// its review: once, as its result would have been. On GitHub the reply is
// the job's own comment (ReplyKind), so the same job run again (the
// command asked again once it was cancelled) edits it into the result. On
// Gerrit it is tagged with the job's kind and "-failed", posted once per
// patch set whatever its text: under the result's own tag it would keep a
// later result off the patch set, since that is posted once per patch set
// too.
//
// A request whose target is not the job's review gets no reply: there is
// nowhere to answer that is known to be the asker's. The result is what
// was posted; nil when nothing was.
func (w *Worker) replyFailure(ctx context.Context, j *queue.Job, failed error) (*job.PostResult, error) {
	a := &j.Args
	cfg := w.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if checkTarget(a, &a.Request, cfg) != nil {
		return nil, nil
	}
	req := job.Request{Steps: []string{job.StepPost}, DryRun: a.Request.DryRun}
	kind := ReplyKind(a)
	var where string
	markdown := false
	if g := a.Request.GitHub; a.Review.GitHub != nil {
		req.GitHub = &job.GitHub{PullRequest: g.PullRequest, HeadSHA: g.HeadSHA}
		where, markdown = abbrev.Hash(g.HeadSHA), true
	} else {
		g := a.Request.Gerrit
		req.Gerrit = &job.Gerrit{Server: g.Server, Change: g.Change, Revision: g.Revision}
		where = fmt.Sprintf("patch set %d (%s)", a.Revision.PatchSet, abbrev.Hash(g.Revision))
		kind += "-failed"
	}
	root := ""
	if w.Areas != nil {
		root = w.Areas.Root
	}
	text := failureText(*asked(a), where, failed, w.secrets(), root, markdown)
	if queue.IsPermanent(failed) {
		text += "Not retried: a retry would fail the same way. Ask again with a new /patchbot " + a.Command + " comment once it is mended.\n"
	} else {
		text += fmt.Sprintf("Tried %d times. Ask again with a new /patchbot %s comment once the change, or the server, is mended.\n", max(j.Attempt, 1), a.Command)
	}
	req.Post = job.PostSettings{Kind: kind, Text: text, Once: true}
	deadline := time.Now().Add(failPostTimeout)
	if r := j.RescueAt.Add(-rescueSlack); !j.RescueAt.IsZero() && r.Before(deadline) {
		deadline = r
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancel()
	return job.Post(ctx, &req, w.Config, w.jobEnv())
}

// failureText says what failed: a line of patchbot's, then the error in a
// block, plain text. The error's first line is worded for a reviewer
// (internal/remedy) and cut to maxFailLine bytes; the lines after it are
// cut to their last maxExcerptLines lines and maxExcerpt bytes. Control
// characters are removed, the secrets replaced, and the paths of the work
// areas under root made relative to the checkout (relPaths). On GitHub
// (markdown) the block is a code fence longer than any run of backticks in
// it (escape.MarkdownFence), so nothing in it renders, links or mentions;
// on Gerrit it is indented, and each line escaped (escape.Gerrit), since
// Gerrit links and mentions in indented lines too.
func failureText(asked job.Asked, where string, failed error, secrets []string, root string, markdown bool) string {
	msg := failureMessage(failed, secrets, root)
	first, rest, _ := strings.Cut(msg, "\n")
	lines := []string{firstFailureLine(first)}
	var tail []string
	for l := range strings.SplitSeq(strings.TrimRight(rest, "\n"), "\n") {
		if l = strings.TrimRight(clean(l), " "); l != "" || len(tail) > 0 {
			tail = append(tail, l)
		}
	}
	omitted := false
	if len(tail) > maxExcerptLines {
		tail, omitted = tail[len(tail)-maxExcerptLines:], true
	}
	n := 0
	for i := len(tail) - 1; i >= 0; i-- {
		if n += len(tail[i]) + 1; n > maxExcerpt {
			tail, omitted = tail[i+1:], true
			break
		}
	}
	if omitted {
		lines = append(lines, "[...]")
	}
	lines = append(lines, tail...)

	text := escape.Gerrit
	if markdown {
		text = escape.Markdown
	}
	var b strings.Builder
	fmt.Fprintf(&b, "patchbot could not finish %s", text(clean(asked.Command)))
	if asked.Who != "" {
		fmt.Fprintf(&b, ", asked by %s,", text(clean(asked.Who)))
	}
	fmt.Fprintf(&b, " on %s:\n\n", where)
	if markdown {
		fence := escape.MarkdownFence(strings.Join(lines, "\n"))
		fmt.Fprintf(&b, "%stext\n%s\n%s\n\n", fence, strings.Join(lines, "\n"), fence)
	} else {
		for _, l := range lines {
			fmt.Fprintf(&b, "    %s\n", escape.Gerrit(l))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// failureMessage is failed's text with the secrets replaced and the work
// areas' paths made relative to the checkout.
func failureMessage(failed error, secrets []string, root string) string {
	msg := failed.Error()
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	return relPaths(msg, root)
}

// firstFailureLine is a failure's first line as a reviewer reads it.
func firstFailureLine(first string) string {
	return cut(clean(remedy.Word(first, reviewerWords)), maxFailLine)
}

// failureLine is failed in a line, as failureText's first (a part's
// failure, in the whole's reply).
func failureLine(failed error, secrets []string, root string) string {
	first, _, _ := strings.Cut(failureMessage(failed, secrets, root), "\n")
	return firstFailureLine(first)
}

// areaPath is the path of a work area in an error, after Areas.Root: a
// separator and the area's name (Areas.dir), then a separator or the end
// of the path.
const areaPath = `[/\\][0-9a-f]{24}([/\\]|\b)`

// relPaths returns msg with the paths of the work areas under root, the
// checkouts the jobs run in, made relative to the checkout: ROOT/AREA/x is
// x, ROOT/AREA alone is ".". A reply must not publish the server's paths;
// the paths of a bench run's own temporary files benchrun already makes
// relative to their checkout.
func relPaths(msg, root string) string {
	if root == "" {
		return msg
	}
	re := regexp.MustCompile(regexp.QuoteMeta(filepath.Clean(root)) + areaPath)
	return re.ReplaceAllStringFunc(msg, func(m string) string {
		if strings.HasSuffix(m, "/") || strings.HasSuffix(m, "\\") {
			return ""
		}
		return "."
	})
}

// clean returns s with tabs made spaces and other control characters
// (escapes, carriage returns, direction overrides) removed.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == utf8.RuneError:
			return -1
		}
		return r
	}, s)
}

// cut returns s cut to at most n bytes, at a character boundary, with
// "..." when it was cut. It is abbrev.Clip on valid UTF-8; on invalid
// UTF-8 it cuts further, to before the first invalid byte.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n-3]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}

// errorLine returns the first line of s, cut for an error's text.
func errorLine(s string) string {
	return cut(abbrev.FirstLine(s), maxFailLine)
}

// secrets returns the credentials in the worker's environment, to be
// kept out of failure replies: errors should not hold them, and this
// makes sure.
func (w *Worker) secrets() []string {
	getenv := w.Env.Getenv
	if getenv == nil {
		getenv = defaultGetenv
	}
	var out []string
	for _, k := range []string{review.EnvGitHubToken, review.EnvGerritPassword} {
		if v := getenv(k); len(v) >= 4 {
			out = append(out, v)
		}
	}
	return out
}

// reviewerWords words the request fields a library's remedy names
// (internal/remedy) as the comment command's own options: the reviewer
// writes a command, not a request.
func reviewerWords(field string) string {
	switch field {
	case "bench.bench":
		return "-bench REGEXP"
	case "bench.count":
		return "-count N"
	case "bench.packages":
		return "the packages (PKG...)"
	}
	return ""
}
