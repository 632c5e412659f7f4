package serve

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/internal/escape"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// The headers of a GitHub delivery.
const (
	headerSignature    = "X-Hub-Signature-256"
	headerSignatureSHA = "X-Hub-Signature" // SHA-1: never accepted
	headerEvent        = "X-GitHub-Event"
	headerDelivery     = "X-GitHub-Delivery"
)

// deliveryRE is what a delivery id may be: GitHub's are GUIDs. It goes
// into logs and the queue, so nothing else is taken.
var deliveryRE = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// eventRE is what an event's name may be: GitHub's are snake case, some
// with digits (projects_v2_item). The name goes into logs, so nothing else
// is taken; a well-formed name that patchbot does not act on is answered
// 200, as GitHub expects of a hook subscribed to more than it reads.
var eventRE = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// A delivery is one request to the webhook, as the log line and the answer
// describe it.
type delivery struct {
	id, event string
	attrs     []slog.Attr
	// read is set once the whole body was read: an answer before that
	// closes the connection rather than read the rest of the body.
	read bool
}

func (d *delivery) add(attrs ...slog.Attr) { d.attrs = append(d.attrs, attrs...) }

// answer writes the status and a one-line text (GitHub's delivery log shows
// it), and logs the delivery in one line. Before the body is read (d.read
// false), it closes the connection after the answer: otherwise net/http
// would read up to 256 KiB of the body first, for the next request on the
// connection, as slowly as the client sends it.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, d *delivery, status int, outcome, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !d.read {
		w.Header().Set("Connection", "close")
	}
	w.WriteHeader(status)
	io.WriteString(w, text+"\n")
	if !d.read {
		// The server reads what is left of the body when the handler
		// returns; a deadline already past ends that at once. (A
		// ResponseRecorder cannot set one; nothing is left to read there.)
		http.NewResponseController(w).SetReadDeadline(time.Now())
	}
	if d.id != "" && status/100 == 2 && outcome != "redelivery" && outcome != "pong" {
		h.seen.add(d.id, text)
	}

	level := slog.LevelInfo
	switch {
	case status >= 500:
		level = slog.LevelError
	case status >= 400:
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("delivery", d.id),
		slog.String("event", d.event),
		slog.Int("status", status),
		slog.String("outcome", outcome),
	}
	attrs = append(attrs, d.attrs...)
	if status >= 400 {
		attrs = append(attrs, slog.String("remote", r.RemoteAddr), slog.String("why", text))
	}
	h.log.LogAttrs(r.Context(), level, "webhook", attrs...)
}

// webhook serves POST /webhook/github.
func (h *Handler) webhook(w http.ResponseWriter, r *http.Request) {
	d := &delivery{}
	// The headers go into the log: only well-formed ones.
	if id := r.Header.Get(headerDelivery); deliveryRE.MatchString(id) {
		d.id = id
	}
	if ev := r.Header.Get(headerEvent); eventRE.MatchString(ev) {
		d.event = ev
	}

	// What can be refused without the body is refused first.
	sig, msg := signature(r.Header)
	if msg != "" {
		h.answer(w, r, d, http.StatusUnauthorized, "unsigned", msg)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		h.answer(w, r, d, http.StatusUnsupportedMediaType, "bad content type",
			fmt.Sprintf("content type %q: want application/json (the webhook's content type setting)", clipValid(r.Header.Get("Content-Type"), 60)))
		return
	}
	if r.ContentLength < 0 {
		// GitHub always declares its body's length; a body without
		// one could not be held to the minimum rate (bodyDeadline).
		h.answer(w, r, d, http.StatusLengthRequired, "no length", "the body's length is not declared (Content-Length): GitHub declares it")
		return
	}
	if r.ContentLength > h.cfg.MaxBody {
		h.answer(w, r, d, http.StatusRequestEntityTooLarge, "too large", fmt.Sprintf("body larger than %d bytes: %d declared", h.cfg.MaxBody, r.ContentLength))
		return
	}

	// The body, read in a slot (bodyread.go), checked and decoded there;
	// at most MaxBodyReadsPerAddr of the slots for one address.
	retry := strconv.Itoa(int((h.cfg.BodyTimeout + time.Second - 1) / time.Second)) // a slot frees within BodyTimeout, at the latest
	host := remoteHost(r)
	if !h.addrs.take(r.Context(), host, h.cfg.BodyWait) {
		w.Header().Set("Retry-After", retry)
		h.answer(w, r, d, http.StatusServiceUnavailable, "busy",
			fmt.Sprintf("busy: %d deliveries from this address are being read; redeliver in a few seconds", h.cfg.MaxBodyReadsPerAddr))
		return
	}
	buf, ok := h.reads.acquire(r.Context(), h.cfg.BodyWait)
	if !ok {
		h.addrs.give(host)
		w.Header().Set("Retry-After", retry)
		h.answer(w, r, d, http.StatusServiceUnavailable, "busy",
			fmt.Sprintf("busy: %d deliveries are being read; redeliver in a few seconds", h.cfg.MaxBodyReads))
		return
	}
	p, ok := h.readSigned(w, r, d, sig, buf)
	h.addrs.give(host)
	if !ok {
		return
	}

	// Signed: from here on the request is GitHub's.
	switch {
	case d.id == "":
		h.answer(w, r, d, http.StatusBadRequest, "no delivery", "missing or malformed "+headerDelivery)
		return
	case d.event == "":
		h.answer(w, r, d, http.StatusBadRequest, "no event", "missing or malformed "+headerEvent)
		return
	}
	if prev, ok := h.seen.get(d.id); ok {
		// A redelivery, while this process remembers the first: answered
		// as it was, without reading GitHub again. (After a restart the
		// queue's uniqueness makes it a duplicate, as long as the pull
		// request's head has not moved.)
		h.answer(w, r, d, http.StatusOK, "redelivery", "redelivery, already handled: "+prev)
		return
	}
	switch d.event {
	case "ping":
		h.answer(w, r, d, http.StatusOK, "pong", "pong")
	case "issue_comment":
		if p.decodeErr != nil {
			h.answer(w, r, d, http.StatusBadRequest, "bad JSON", "not an issue_comment payload: "+clipValid(p.decodeErr.Error(), 200))
			return
		}
		h.issueComment(w, r, d, p.comment)
	case "pull_request":
		if p.decodeErr != nil {
			h.answer(w, r, d, http.StatusBadRequest, "bad JSON", "not a pull_request payload: "+clipValid(p.decodeErr.Error(), 200))
			return
		}
		h.pullRequest(w, r, d, p.pull)
	case "pull_request_review", "pull_request_review_comment":
		if p.decodeErr != nil {
			h.answer(w, r, d, http.StatusBadRequest, "bad JSON", "not a "+d.event+" payload: "+clipValid(p.decodeErr.Error(), 200))
			return
		}
		h.reviewHint(w, r, d, p.review)
	default:
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: patchbot reads issue_comment, pull_request and review events only")
	}
}

// A payload is what is kept of a signed body once its slot is given back.
type payload struct {
	comment   *issueCommentEvent // an issue_comment event, decoded
	pull      *pullRequestEvent  // a pull_request event, decoded
	review    *reviewEvent       // a pull_request_review or pull_request_review_comment event
	decodeErr error              // what kept it from being decoded
}

// readSigned reads the body into buf, the buffer of the slot the caller
// took, within BodyTimeout; checks the signature; and, for an
// issue_comment, decodes it. It gives the slot back before it returns,
// having kept nothing of the body but the decoded event, so that the slot
// is held while the body is read, not while GitHub is. It reports false
// when it answered: the body was too large, too slow or unreadable, or its
// signature is wrong.
func (h *Handler) readSigned(w http.ResponseWriter, r *http.Request, d *delivery, sig []byte, buf []byte) (payload, bool) {
	defer func() { h.reads.release(buf) }()
	// The server's own read timeout (if any) bounds the whole request;
	// this bounds the body, which a slot waits for. A ResponseRecorder
	// cannot set it, and does not need to.
	rc := http.NewResponseController(w)
	limit := bodyDeadline(r.ContentLength, h.cfg.BodyTimeout)
	rc.SetReadDeadline(time.Now().Add(limit))
	var err error
	buf, err = readInto(buf, http.MaxBytesReader(w, r.Body, h.cfg.MaxBody), r.ContentLength)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			h.answer(w, r, d, http.StatusRequestEntityTooLarge, "too large", fmt.Sprintf("body larger than %d bytes", h.cfg.MaxBody))
			return payload{}, false
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			h.answer(w, r, d, http.StatusRequestTimeout, "too slow",
				fmt.Sprintf("the body took more than %v to arrive (%d bytes by then)", limit, len(buf)))
			return payload{}, false
		}
		h.answer(w, r, d, http.StatusBadRequest, "unreadable", "reading the body: "+err.Error())
		return payload{}, false
	}
	d.read = true
	// No deadline from here on: net/http watches a read body's
	// connection for the client going away, and a deadline passing
	// there would cancel the request's context in the middle of the
	// reads of GitHub.
	rc.SetReadDeadline(time.Time{})
	mac := hmac.New(sha256.New, h.cfg.Secret)
	mac.Write(buf)
	if !hmac.Equal(mac.Sum(nil), sig) {
		h.answer(w, r, d, http.StatusUnauthorized, "bad signature", headerSignature+" does not match the body: check the webhook's secret")
		return payload{}, false
	}
	// Unmarshal copies what it keeps (strings, RawMessage): nothing of
	// the events refers to buf.
	switch d.event {
	case "issue_comment":
		ev := new(issueCommentEvent)
		if err := json.Unmarshal(buf, ev); err != nil {
			return payload{decodeErr: err}, true
		}
		return payload{comment: ev}, true
	case "pull_request":
		ev := new(pullRequestEvent)
		if err := json.Unmarshal(buf, ev); err != nil {
			return payload{decodeErr: err}, true
		}
		return payload{pull: ev}, true
	case "pull_request_review", "pull_request_review_comment":
		ev := new(reviewEvent)
		if err := json.Unmarshal(buf, ev); err != nil {
			return payload{decodeErr: err}, true
		}
		return payload{review: ev}, true
	}
	return payload{}, true
}

// deliveries remembers the deliveries that were handled (answered 2xx), for
// a while, so that a redelivery is a no-op without a read of GitHub. One
// that failed (a 5xx) is not remembered: its redelivery is tried again.
type deliveries struct {
	mu  sync.Mutex
	ttl time.Duration
	now func() time.Time
	m   map[string]seenDelivery
}

type seenDelivery struct {
	at     time.Time
	answer string
}

// maxSeen bounds the deliveries remembered; only signed requests are.
const maxSeen = 100_000

func (s *deliveries) get(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[id]
	if !ok || s.now().Sub(e.at) > s.ttl {
		return "", false
	}
	return e.answer, true
}

func (s *deliveries) add(id, answer string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if len(s.m) >= maxSeen {
		for k, e := range s.m {
			if now.Sub(e.at) > s.ttl {
				delete(s.m, k)
			}
		}
		if len(s.m) >= maxSeen {
			clear(s.m)
		}
	}
	s.m[id] = seenDelivery{at: now, answer: answer}
}

// signature returns the SHA-256 HMAC that the request says its body has,
// or what is wrong with the header.
func signature(hd http.Header) ([]byte, string) {
	v := hd.Get(headerSignature)
	if v == "" {
		if hd.Get(headerSignatureSHA) != "" {
			return nil, "only a SHA-1 signature (" + headerSignatureSHA + "): patchbot takes " + headerSignature + " only"
		}
		return nil, "missing " + headerSignature + ": set a secret in the webhook's settings"
	}
	hexSum, ok := strings.CutPrefix(v, "sha256=")
	if !ok || len(hexSum) != 2*sha256.Size {
		return nil, "malformed " + headerSignature + ": want sha256=HEX"
	}
	sum, err := hex.DecodeString(hexSum)
	if err != nil {
		return nil, "malformed " + headerSignature + ": want sha256=HEX"
	}
	return sum, ""
}

// Sign returns the X-Hub-Signature-256 header GitHub sends with body, for
// tests and tools that deliver by hand.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// issueCommentEvent is the part of GitHub's issue_comment payload that
// patchbot reads. It is decoded here rather than through go-github's
// types: these few fields are all there is to it, and step/review
// stays the only package that talks to GitHub's libraries.
type issueCommentEvent struct {
	Action string `json:"action"`
	Issue  struct {
		Number int64  `json:"number"`
		State  string `json:"state"` // "open", "closed"
		// PullRequest is present (not null) when the issue is a pull
		// request.
		PullRequest *json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Comment struct {
		ID        int64     `json:"id"`
		Body      string    `json:"body"`
		CreatedAt time.Time `json:"created_at"`
		User      struct {
			Login string `json:"login"`
			Type  string `json:"type"`
		} `json:"user"`
	} `json:"comment"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

// check returns the pull request (or issue) that ev names, or what makes
// ev invalid on its face: a missing field, a repository or login that
// GitHub would not have sent (evil/.., ../../admin), a number out of
// GitHub's range, a pull_request field that is not an object. It reads
// nothing: such a payload is answered 400 before any read of GitHub,
// since no redelivery could make it good. A comment on an issue that is
// not a pull request is valid (GitHub sends those to the same hook); the
// decision ignores it.
func (ev *issueCommentEvent) check() (review.PullRequest, error) {
	switch {
	case ev.Action == "":
		return review.PullRequest{}, errors.New("issue_comment without an action")
	case ev.Issue.Number <= 0, ev.Comment.ID <= 0, ev.Repository.FullName == "", ev.Comment.User.Login == "":
		return review.PullRequest{}, errors.New("issue_comment without its issue number, comment id, repository or author")
	}
	pr, err := review.ParsePullRequest(ev.Repository.FullName + "#" + strconv.FormatInt(ev.Issue.Number, 10))
	if err != nil {
		return review.PullRequest{}, fmt.Errorf("repository and issue: %v", err)
	}
	if err := review.CheckLogin(ev.Comment.User.Login); err != nil {
		return review.PullRequest{}, fmt.Errorf("the comment's author: %v", err)
	}
	if p := ev.Issue.PullRequest; p != nil && (len(*p) == 0 || (*p)[0] != '{') {
		return review.PullRequest{}, fmt.Errorf("issue.pull_request is %s: want an object, or none for an issue", clipValid(string(*p), 40))
	}
	return pr, nil
}

// issueComment reads an issue_comment event: a command from someone who
// may ask becomes a job bound to the pull request's head; a command that
// is not understood, or from someone who may not ask, a job that replies;
// anything else nothing (decide).
func (h *Handler) issueComment(w http.ResponseWriter, r *http.Request, d *delivery, ev *issueCommentEvent) {
	pr, err := ev.check()
	if err != nil {
		h.answer(w, r, d, http.StatusBadRequest, "bad payload", clipValid(err.Error(), 200))
		return
	}
	d.add(slog.String("review", review.GitHubTarget(pr).String()), slog.Int64("comment", ev.Comment.ID), slog.String("who", clipValid(ev.Comment.User.Login, 60)))
	if ev.Issue.PullRequest == nil {
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: a comment on an issue, not on a pull request")
		return
	}
	if ev.Issue.State == "closed" {
		// Closed and merged pull requests get nothing, not even help
		// or a refusal (docs/serve.md).
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: the pull request is closed")
		return
	}
	c := &queue.Deferred{
		Comment:   ev.Comment.ID,
		Action:    ev.Action,
		Login:     ev.Comment.User.Login,
		UserType:  ev.Comment.User.Type,
		Body:      ev.Comment.Body,
		CreatedAt: ev.Comment.CreatedAt,
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.LookupTimeout)
	defer cancel()
	o := h.decide(ctx, d, pr, c, false)
	h.answer(w, r, d, o.status, o.name, o.text)
}

// An outcome is what became of a comment: a delivery's answer.
type outcome struct {
	status     int
	name, text string
}

// maxDefer bounds how long a comment waits for GitHub's rate limit to
// reset: an hour is its longest.
const maxDefer = time.Hour

// decide decides on comment c on pull request pr and queues what the
// decision makes, as the webhook does with a delivery (d, whose log
// attributes it adds to) and as a CommandDecide job does later (deferred).
// Where GitHub refuses a read for its rate limit, the comment is queued to
// be decided when the limit resets, rather than answered 502 and lost
// (GitHub does not redeliver by itself); a deferred decision that meets
// the limit again fails, for the queue to retry.
func (h *Handler) decide(ctx context.Context, d *delivery, pr review.PullRequest, c *queue.Deferred, deferred bool) outcome {
	target := review.GitHubTarget(pr)
	gc := command.GitHubComment{
		Action:        c.Action,
		OnPullRequest: true,
		Login:         c.Login,
		UserType:      c.UserType,
		Body:          c.Body,
	}
	failed := func(what string, err error) outcome {
		d.add(slog.String("error", err.Error()))
		if e, ok := errors.AsType[*review.Error](err); ok && e.RateLimited() && !deferred {
			return h.deferDecision(ctx, d, pr, c, e.RetryAfter, "GitHub's rate limit")
		}
		return outcome{http.StatusBadGateway, "lookup failed", "reading " + what + " failed; redeliver once GitHub answers"}
	}
	dec := h.cfg.Trust.GitHub(gc)
	if dec.Verdict != command.Ignore {
		// The queue first: a comment that has a job (its command's, or
		// its reply) was delivered before, under this delivery id or
		// another, before a restart or to another process. It is
		// that job's, answered or to be; checked again (its age, the
		// head since), it would be told to ask again for what ran.
		prev, ok, err := h.cfg.Queue.JobOfMessage(ctx, target, strconv.FormatInt(c.Comment, 10))
		if err != nil {
			d.add(slog.String("error", err.Error()))
			return outcome{http.StatusInternalServerError, "queue failed", "the queue could not be read; redeliver"}
		}
		if ok {
			d.add(slog.Int64("job", prev.ID), slog.Bool("duplicate", true))
			return outcome{http.StatusOK, "duplicate", fmt.Sprintf("this comment has job %d already (%s): nothing new queued", prev.ID, prev.State)}
		}
	}
	if dec.Verdict == command.Lookup {
		p, cached := h.perms.get(pr.Owner, pr.Repo, gc.Login)
		if !cached {
			var err error
			p, err = h.cfg.GitHub.PermissionLevel(ctx, pr.Owner, pr.Repo, gc.Login)
			if err != nil {
				return failed("the author's permission", err)
			}
			h.perms.put(pr.Owner, pr.Repo, gc.Login, p)
		}
		gc.Permission = p
		d.add(slog.String("permission", p), slog.Bool("cached", cached))
		dec = trustOnce(&h.cfg.Trust, gc)
	}
	d.add(slog.String("verdict", string(dec.Verdict)), slog.String("reason", clipValid(dec.Reason, 200)))

	id := strconv.FormatInt(c.Comment, 10)
	origin := queue.Origin{Who: gc.Login, Author: gc.Login, Message: id, Delivery: d.id}
	req := job.Request{GitHub: &job.GitHub{PullRequest: pr}}
	var rev review.Revision
	switch dec.Verdict {
	case command.Ignore:
		return outcome{http.StatusOK, "ignored", "ignored: " + clipValid(dec.Reason, 200)}
	case command.Refuse, command.Answer:
		// Replies: one refusal per author and pull request, whatever
		// they write and however often; one help per comment.
	case command.Run:
		age := h.cfg.Now().Sub(c.CreatedAt)
		// A deferred comment is older than the window by design: its
		// head is checked against the recorded ones below instead.
		if age > h.cfg.MaxCommentAge && !deferred {
			d.add(slog.String("declined", "stale"))
			dec = decline(dec, staleReply(age, h.cfg.MaxCommentAge))
			break
		}
		head, err := h.cfg.GitHub.PullRequestHead(ctx, pr)
		if err != nil {
			return failed("the pull request's head", err)
		}
		if head.State != "open" {
			return outcome{http.StatusOK, "ignored", "ignored: the pull request is " + clipValid(head.State, 20)}
		}
		moved, known, unseen, err := h.headMoved(ctx, pr, head.SHA, c.CreatedAt)
		if err != nil {
			d.add(slog.String("error", err.Error()))
			return outcome{http.StatusInternalServerError, "heads failed", "the pull request's heads could not be read; redeliver"}
		}
		switch {
		case moved:
			d.add(slog.String("declined", "head moved"))
			dec = decline(dec, fmt.Sprintf("The pull request's head moved after this command was written: it is now %s. Nothing was run: look at the new commits, and ask again to measure them.", head.SHA))
		case unseen && !deferred:
			// Its push's event is on its way: decided again once it
			// has had time to come.
			d.add(slog.String("deferred", "head not seen yet"))
			return h.deferDecision(ctx, d, pr, c, headWait, "the head's push not seen yet")
		case unseen:
			// Recorded now, so that the pull request is not stuck:
			// a command written from here on runs on this head.
			if err := h.cfg.Heads.RecordHead(ctx, pr.String(), head.SHA, h.cfg.Now()); err != nil {
				d.add(slog.String("error", err.Error()))
				return outcome{http.StatusInternalServerError, "heads failed", "the head could not be recorded; redeliver"}
			}
			d.add(slog.String("declined", "head not seen"))
			dec = decline(dec, fmt.Sprintf("The pull request's head is now %s, and patchbot has no record of when it was pushed, though it has of the heads before it: it may have been pushed after this command was written. Nothing was run: look at the new commits, and ask again to measure them.", head.SHA))
		case !known && age > h.cfg.MaxCommentAge:
			// Deferred, and nothing says the head is the one it was
			// written on.
			d.add(slog.String("declined", "stale"))
			dec = decline(dec, staleReply(age, h.cfg.MaxCommentAge))
		default:
			// What was read is kept: the worker need not read the
			// base branch and the repository's URL again.
			rev = review.Revision{Commit: head.SHA}
			req.GitHub.HeadSHA, req.GitHub.CloneURL, req.Branch = head.SHA, head.CloneURL, head.Base
			req.GitHub.Unverified = !known
		}
	default:
		return outcome{http.StatusInternalServerError, "bug", "unexpected verdict " + string(dec.Verdict)}
	}
	a, err := queue.NewJob(target, rev, dec, origin, req)
	if err != nil {
		d.add(slog.String("error", err.Error()))
		return outcome{http.StatusBadRequest, "bad payload", clipValid(err.Error(), 200)}
	}
	o, res := h.insert(ctx, d, a)
	if !res.Duplicate || dec.Verdict != command.Run {
		return o
	}
	// The same command on the same commit, asked by another comment:
	// the job is there already, and this comment gets one reply saying
	// where its answer is. (The same comment delivered again, as after
	// a restart, is a redelivery: no reply.)
	prev, err := h.cfg.Queue.Job(ctx, res.ID)
	if err != nil {
		d.add(slog.String("error", err.Error()))
		return o
	}
	if prev.Delivery == d.id {
		return o
	}
	reply, err := queue.NewJob(target, review.Revision{}, command.Decision{Verdict: command.Answer, Reply: h.alreadyAsked(ctx, a, prev)}, origin, req)
	if err != nil {
		d.add(slog.String("error", err.Error()))
		return o
	}
	o, _ = h.insert(ctx, d, reply)
	return o
}

// alreadyAsked says, to a comment that asks what was asked already on the
// same commit, where the answer is: the reply's link once it is posted.
func (h *Handler) alreadyAsked(ctx context.Context, a *queue.Args, prev queue.JobInfo) string {
	return alreadyAsked(ctx, h.cfg.Results, a, prev, escape.MarkdownCode, a.Revision.Commit, "pull request")
}

// alreadyAsked is the reply to a command asked already on the same
// revision (a, queued as prev), on GitHub and Gerrit alike: the command as
// code (the reviewer's own text, made inert), the revision, and the link
// to the earlier answer, or that it will come once, on this review (kind).
func alreadyAsked(ctx context.Context, results func(context.Context, queue.JobInfo) (*work.Output, error), a *queue.Args, prev queue.JobInfo, code func(string) string, where, kind string) string {
	asked := command.Prefix + " " + a.Command
	if a.Options != "" {
		asked += " " + a.Options
	}
	text := fmt.Sprintf("%s was asked already on %s: nothing new is run.", code(asked), where)
	if out, err := results(ctx, prev); err == nil && out != nil && out.URL != "" {
		return text + " Its answer: " + out.URL
	}
	return text + " patchbot replies to it once, on this " + kind + "."
}

// insert queues a and says what became of it.
func (h *Handler) insert(ctx context.Context, d *delivery, a *queue.Args) (outcome, queue.InsertResult) {
	d.add(slog.String("revision", a.Bound()), slog.String("command", a.Command))
	res, err := h.cfg.Queue.Insert(ctx, a)
	if err != nil {
		d.add(slog.String("error", err.Error()))
		return outcome{http.StatusInternalServerError, "queue failed", "the job could not be queued; redeliver"}, res
	}
	d.add(slog.Int64("job", res.ID), slog.Bool("duplicate", res.Duplicate))
	if res.Duplicate {
		// A redelivery, or another comment asking for the same command
		// on the same revision: the job is already there.
		return outcome{http.StatusOK, "duplicate", fmt.Sprintf("duplicate of job %d (%s): nothing new queued", res.ID, res.State)}, res
	}
	if a.Command == queue.CommandDecide {
		return outcome{http.StatusAccepted, "deferred", fmt.Sprintf("queued job %d: %s; the comment is decided at %s", res.ID, cmp.Or(a.Deferred.Why, "GitHub's rate limit"), a.Deferred.Until.UTC().Format(time.RFC3339))}, res
	}
	return outcome{http.StatusAccepted, "queued", fmt.Sprintf("queued job %d", res.ID)}, res
}

// deferDecision queues comment c to be decided after wait, for why: when
// GitHub's rate limit has reset (a minute when it did not say; at most
// maxDefer), or once the head's pull_request event has had time to come.
func (h *Handler) deferDecision(ctx context.Context, d *delivery, pr review.PullRequest, c *queue.Deferred, wait time.Duration, why string) outcome {
	if wait <= 0 {
		wait = time.Minute
	}
	wait = min(wait+time.Second, maxDefer)
	// The delivery's lookups may have spent its deadline: the insert,
	// which keeps the comment, gets a few seconds of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	dc := *c
	dc.Until = h.cfg.Now().Add(wait).Truncate(time.Second)
	dc.Why = why
	a := &queue.Args{
		Review:   review.GitHubTarget(pr),
		Reply:    queue.DeferKey(c.Comment),
		Command:  queue.CommandDecide,
		Who:      c.Login,
		Delivery: d.id,
		Message:  strconv.FormatInt(c.Comment, 10),
		Request:  job.Request{Steps: []string{job.StepPost}, GitHub: &job.GitHub{PullRequest: pr}},
		Deferred: &dc,
	}
	o, _ := h.insert(ctx, d, a)
	return o
}

// Decide decides on a comment the webhook deferred (a CommandDecide job,
// queue.Args.Deferred), as the webhook would have, and queues what the
// decision makes; it logs one line, as a delivery does. An error (GitHub
// still refusing, the queue failing) is for the queue to retry.
func (h *Handler) Decide(ctx context.Context, j *queue.Job) error {
	if j.Args.Deferred == nil || j.Args.Review.GitHub == nil {
		return queue.Permanent(fmt.Errorf("decide: job %s has no comment to decide on", &j.Args))
	}
	d := &delivery{id: j.Args.Delivery, event: "issue_comment"}
	d.add(slog.String("review", j.Args.Review.String()), slog.Int64("comment", j.Args.Deferred.Comment), slog.String("who", clipValid(j.Args.Deferred.Login, 60)), slog.Bool("deferred", true))
	o := h.decide(ctx, d, *j.Args.Review.GitHub, j.Args.Deferred, true)
	attrs := append([]slog.Attr{slog.String("delivery", d.id), slog.Int("status", o.status), slog.String("outcome", o.name)}, d.attrs...)
	if o.status >= 500 {
		h.log.LogAttrs(ctx, slog.LevelWarn, "deferred comment", append(attrs, slog.String("why", o.text))...)
		return errors.New("deciding on a deferred comment: " + o.text)
	}
	h.log.LogAttrs(ctx, slog.LevelInfo, "deferred comment", attrs...)
	return nil
}

// staleReply says why a command too old was not run.
func staleReply(age, window time.Duration) string {
	return fmt.Sprintf("This command was written %v ago, longer than patchbot waits (%v): the pull request may have moved on since. Nothing was run: ask again.", age.Round(time.Second), window)
}

// headMoved reports whether pull request pr's head, now sha, arrived after
// the comment written at written (by the pull_request events recorded in
// Config.Heads), and whether that is known at all: without a record of
// sha, it is not.
//
// unseen reports that sha has no record while other heads of pr do: its
// pull_request event has not come yet, so it was most likely pushed after
// those, and it may have been after the comment.
func (h *Handler) headMoved(ctx context.Context, pr review.PullRequest, sha string, written time.Time) (moved, known, unseen bool, err error) {
	if h.cfg.Heads == nil {
		return false, false, false, nil
	}
	at, others, err := h.cfg.Heads.HeadSeen(ctx, pr.String(), sha)
	if err != nil {
		return false, false, false, err
	}
	if at.IsZero() {
		return false, false, others, nil
	}
	// The head's time and the comment's are GitHub's, in whole
	// seconds (or this server's clock, for a payload without one):
	// within headMargin of each other, which came first is not known.
	switch {
	case at.After(written.Add(headMargin)):
		return true, true, false, nil
	case at.Before(written.Add(-headMargin)):
		return false, true, false, nil
	}
	return false, false, false, nil
}

// headWait is how long a command on a head not seen yet (headMoved's
// unseen) waits for that head's pull_request event before it is decided
// again: GitHub sends the events of a push within seconds.
const headWait = 30 * time.Second

// headMargin is how close a head's arrival and a comment's time may be
// for their order to be taken as unknown: GitHub's whole seconds, and
// some difference between its clock and this server's.
const headMargin = 2 * time.Second

// decline turns a decision to run into a reply that says why the command
// was not run: one reply to the comment, as a help is.
func decline(d command.Decision, why string) command.Decision {
	return command.Decision{Verdict: command.Answer, Command: d.Command, Reply: why, Reason: "declined: " + why}
}

// pullRequest reads a pull_request event: a head that a push, an opening
// or a reopening made is recorded with the time it arrived (Config.Heads):
// GitHub's, the payload's updated_at, else the event's arrival; for
// issueComment to check commands against.
func (h *Handler) pullRequest(w http.ResponseWriter, r *http.Request, d *delivery, ev *pullRequestEvent) {
	pr, err := ev.check()
	if err != nil {
		h.answer(w, r, d, http.StatusBadRequest, "bad payload", clipValid(err.Error(), 200))
		return
	}
	d.add(slog.String("review", review.GitHubTarget(pr).String()), slog.String("action", clipValid(ev.Action, 30)))
	switch ev.Action {
	case "opened", "synchronize", "reopened":
	default:
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: a pull_request event that moves no head")
		return
	}
	if h.cfg.Heads == nil {
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: no record of heads is kept")
		return
	}
	d.add(slog.String("revision", ev.PullRequest.Head.SHA))
	// When the head arrived: GitHub's time of the push or the opening
	// (pull_request.updated_at), which a redelivery of the event repeats,
	// so that an unchanged head does not become new again; the time
	// the event came when the payload has none, or one ahead of ours.
	at := h.cfg.Now()
	if u := ev.PullRequest.UpdatedAt; !u.IsZero() && u.Before(at.Add(headMargin)) {
		at = u
	}
	if err := h.cfg.Heads.RecordHead(r.Context(), pr.String(), ev.PullRequest.Head.SHA, at); err != nil {
		d.add(slog.String("error", err.Error()))
		h.answer(w, r, d, http.StatusInternalServerError, "heads failed", "the head could not be recorded; redeliver")
		return
	}
	h.answer(w, r, d, http.StatusOK, "recorded", "recorded the head "+ev.PullRequest.Head.SHA)
}

// pullRequestEvent is the part of GitHub's pull_request payload that
// patchbot reads: which pull request, and its head.
type pullRequestEvent struct {
	Action      string `json:"action"`
	Number      int64  `json:"number"`
	PullRequest struct {
		Head struct {
			SHA string `json:"sha"`
		} `json:"head"`
		UpdatedAt time.Time `json:"updated_at"`
	} `json:"pull_request"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

// check returns the pull request ev names, or what makes ev invalid on its
// face; as issueCommentEvent.check, it reads nothing.
func (ev *pullRequestEvent) check() (review.PullRequest, error) {
	if ev.Action == "" || ev.Number <= 0 || ev.Repository.FullName == "" {
		return review.PullRequest{}, errors.New("pull_request without an action, a number or a repository")
	}
	pr, err := review.ParsePullRequest(ev.Repository.FullName + "#" + strconv.FormatInt(ev.Number, 10))
	if err != nil {
		return review.PullRequest{}, fmt.Errorf("repository and number: %v", err)
	}
	if !shaRE.MatchString(ev.PullRequest.Head.SHA) {
		return review.PullRequest{}, fmt.Errorf("pull_request.head.sha %q: want 40 hex digits", clipValid(ev.PullRequest.Head.SHA, 50))
	}
	return pr, nil
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// trustOnce decides again after a lookup; a second Lookup would be a bug
// of Trust, and is ignored rather than looked up again.
func trustOnce(t *command.Trust, c command.GitHubComment) command.Decision {
	d := t.GitHub(c)
	if d.Verdict == command.Lookup {
		return command.Decision{Verdict: command.Ignore, Reason: "still undecided after the lookup: " + d.Reason}
	}
	return d
}

// clipValid cuts s to n bytes for a log line or an answer, with "..."
// after them, at the start of a character; invalid UTF-8, which a stranger
// may send, becomes U+FFFD first. Unlike abbrev.Clip, the "..." comes on
// top of the n bytes.
func clipValid(s string, n int) string {
	s = escape.NoBidi(s) // which makes invalid UTF-8 U+FFFD first
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}

// reviewEvent is the part of GitHub's pull_request_review (a review's
// body) and pull_request_review_comment (an inline comment) payloads
// that patchbot reads: where, who, and the text.
type reviewEvent struct {
	Action      string         `json:"action"` // "submitted", "created"
	Review      *reviewMessage `json:"review"`
	Comment     *reviewMessage `json:"comment"`
	PullRequest struct {
		Number int64  `json:"number"`
		State  string `json:"state"` // "open", "closed"
	} `json:"pull_request"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

type reviewMessage struct {
	ID          int64     `json:"id"`
	Body        string    `json:"body"`
	SubmittedAt time.Time `json:"submitted_at"` // a review's
	CreatedAt   time.Time `json:"created_at"`   // a review comment's
	User        struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"user"`
}

// reviewHint reads a review or an inline review comment: patchbot takes
// commands from the pull request's conversation only (a review's body has
// no issue_comment event, and an inline comment is about a line), so a
// command written there gets a hint saying where to write it, once per
// author and pull request, whoever wrote it: it says nothing of the
// repository, and a stranger's many reviews get one.
func (h *Handler) reviewHint(w http.ResponseWriter, r *http.Request, d *delivery, ev *reviewEvent) {
	m := ev.Review
	if d.event == "pull_request_review_comment" {
		m = ev.Comment
	}
	if m == nil || m.ID <= 0 || ev.PullRequest.Number <= 0 || m.User.Login == "" {
		h.answer(w, r, d, http.StatusBadRequest, "bad payload", d.event+" without its pull request number, id or author")
		return
	}
	pr, err := review.ParsePullRequest(ev.Repository.FullName + "#" + strconv.FormatInt(ev.PullRequest.Number, 10))
	if err != nil {
		h.answer(w, r, d, http.StatusBadRequest, "bad payload", clipValid("repository and number: "+err.Error(), 200))
		return
	}
	if err := review.CheckLogin(m.User.Login); err != nil {
		h.answer(w, r, d, http.StatusBadRequest, "bad payload", clipValid("the author: "+err.Error(), 200))
		return
	}
	d.add(slog.String("review", review.GitHubTarget(pr).String()), slog.Int64("message", m.ID), slog.String("who", clipValid(m.User.Login, 60)))
	if ev.Action != "submitted" && ev.Action != "created" {
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: a "+d.event+" event that adds no text")
		return
	}
	if ev.PullRequest.State != "open" {
		// As for comments: closed and merged pull requests get nothing.
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: the pull request is not open")
		return
	}
	if at := cmp.Or(m.SubmittedAt, m.CreatedAt); at.IsZero() || h.cfg.Now().Sub(at) > h.cfg.MaxCommentAge {
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: written longer ago than patchbot waits, or at no time said")
		return
	}
	// As a comment would be read, with the permission of the most
	// trusted: whether it holds a command for patchbot at all (not its
	// own, not a bot's), not whether its author may ask.
	gc := command.GitHubComment{Action: "created", OnPullRequest: true, Login: m.User.Login, UserType: m.User.Type, Permission: "admin", Body: m.Body}
	if dec := h.cfg.Trust.GitHub(gc); dec.Verdict == command.Ignore {
		h.answer(w, r, d, http.StatusOK, "ignored", "ignored: "+clipValid(dec.Reason, 200))
		return
	}
	where := "a review"
	if d.event == "pull_request_review_comment" {
		where = "a review comment"
	}
	hint := command.Decision{Verdict: command.Refuse, Reason: "a command in " + where,
		Reply: "patchbot reads commands in the pull request's conversation only, not in " + where + ": nothing was run. Write the command as a comment of its own on the pull request (Conversation tab)."}
	// One per author and pull request, apart from a refusal's key: no
	// GitHub login holds "--".
	origin := queue.Origin{Who: m.User.Login, Author: "hint--" + m.User.Login, Message: strconv.FormatInt(m.ID, 10), Delivery: d.id}
	a, err := queue.NewJob(review.GitHubTarget(pr), review.Revision{}, hint, origin, job.Request{GitHub: &job.GitHub{PullRequest: pr}})
	if err != nil {
		h.answer(w, r, d, http.StatusBadRequest, "bad payload", clipValid(err.Error(), 200))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.LookupTimeout)
	defer cancel()
	o, _ := h.insert(ctx, d, a)
	h.answer(w, r, d, o.status, o.name, o.text)
}
