// Package poll reads a Gerrit server for review messages that ask patchbot
// for work. Gerrit sends no events without plugins, so a Poller asks it,
// each time Poll is called, for the changes updated since its cursor
// (review.Gerrit.ChangesUpdatedSince) and reads their new messages. A
// message that holds a command line (bot/command) and is not a bot's
// becomes an Event: bound to the patch set the message was written on and
// that patch set's commit, never "the latest"; with the author, the
// message id, and the decision of who may ask (command.Trust.Gerrit, with
// the group looked up only when the decision needs it).
//
// The cursor (a Store: a small JSON file by default) advances only after
// the caller has taken every event of a poll: Poll calls a handler for
// each event (which queues the job, or posts the reply), and if one fails
// the cursor stays, so the next poll reads the same messages again. A
// crash between reading and queueing therefore loses nothing; it may give
// an event twice, which the queue's uniqueness makes harmless: the same
// message is the same (review, revision, command), whichever poll or
// process inserts it.
package poll

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// Gerrit is what a Poller reads of the server: review.Gerrit's methods.
type Gerrit interface {
	URL() string
	ChangesUpdatedSince(ctx context.Context, query string, since time.Time, limit int) ([]review.ChangeMessages, error)
	InGroup(ctx context.Context, group, account string) (bool, error)
}

var _ Gerrit = (*review.Gerrit)(nil)

// Defaults of Options.
const (
	// DefaultOverlap is how far before its cursor a poll reads again: a
	// message that the server's index shows a little after its date (or
	// from a server whose clock steps back) is still read, once.
	DefaultOverlap = 2 * time.Minute
	// DefaultPageSize is how many changes one request of a poll reads.
	DefaultPageSize = 100
)

// Options configure a Poller.
type Options struct {
	// Query restricts the changes read, in Gerrit's search syntax
	// ("project:go status:open"); "" reads every change the account can
	// see.
	Query string
	// Trust is who may ask (command.Trust's Gerrit fields).
	Trust command.Trust
	// Store keeps the cursor; nil keeps it in memory only.
	Store Store
	// Start is where a store without a cursor starts: messages dated
	// from Start (less the Overlap) on are read. Zero is the time of the
	// first poll, so that a new server does not answer years of old
	// commands.
	Start time.Time
	// Overlap is how far before the cursor each poll reads again
	// (messages read already are skipped by id); 0 is DefaultOverlap,
	// a negative value none.
	Overlap time.Duration
	// PageSize is the changes a request reads; 0 is DefaultPageSize.
	PageSize int
	// Now is the clock for a zero Start; nil is time.Now.
	Now func() time.Time
}

// A Poller polls one Gerrit server. Its Poll calls run one at a time.
type Poller struct {
	g    Gerrit
	opts Options

	mu sync.Mutex // one Poll at a time
}

// New returns a Poller of g.
func New(g Gerrit, opts *Options) (*Poller, error) {
	o := *opts
	if o.Store == nil {
		o.Store = new(MemStore)
	}
	switch {
	case o.Overlap == 0:
		o.Overlap = DefaultOverlap
	case o.Overlap < 0:
		o.Overlap = 0
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	// The server names the events' review targets (Event.Review).
	if _, err := review.ServerOf(g.URL()); err != nil {
		return nil, fmt.Errorf("poll: %v", err)
	}
	return &Poller{g: g, opts: o}, nil
}

// An Author is who wrote a message, as far as Gerrit shows it.
type Author struct {
	AccountID int    `json:"account_id"`
	Username  string `json:"username,omitempty"`
	Email     string `json:"email,omitempty"`
	Name      string `json:"name,omitempty"`
}

// String names the author for a job's Who: the username, else the email,
// else the account id.
func (a Author) String() string {
	switch {
	case a.Username != "":
		return a.Username
	case a.Email != "":
		return a.Email
	}
	return "account " + strconv.Itoa(a.AccountID)
}

// An Event is a review message with a command in it, and what to do with
// it.
type Event struct {
	Server  string `json:"server"` // the Gerrit server's URL
	Change  int    `json:"change"`
	Project string `json:"project"`
	Branch  string `json:"branch"`
	URL     string `json:"url"` // the change's page

	MessageID string    `json:"message_id"` // Gerrit's id of the message: the event's identity
	Author    Author    `json:"author"`
	Date      time.Time `json:"date"`
	Text      string    `json:"text"` // as Gerrit stores it, "Patch Set N: ...\n\n" first

	// The revision the command was written on: the message's patch set
	// and its commit. The job is bound to it, whatever is pushed later.
	PatchSet int    `json:"patch_set"`
	Commit   string `json:"commit"`
	// The change's current patch set when it was read, which may be
	// newer than the one the command was written on (see Newer).
	CurrentPatchSet int    `json:"current_patch_set"`
	CurrentCommit   string `json:"current_commit"`

	// Decision is what to do: Run (queue Args), Refuse or Answer (post
	// Decision.Reply once). Ignored messages are not events.
	Decision command.Decision `json:"decision"`
}

// Newer reports whether the change had a newer patch set than the
// command's when it was read: the reply should say which patch set it is
// about, and that a newer one exists.
func (e *Event) Newer() bool { return e.CurrentPatchSet > e.PatchSet }

// Review returns the change as the queue's review target.
func (e *Event) Review() review.Target {
	server, err := review.ServerOf(e.Server)
	if err != nil {
		// NewPoller checked its server; an Event made otherwise keeps
		// its server's name as it is.
		server = e.Server
	}
	return review.Target{Gerrit: &review.GerritChange{Server: server, Number: e.Change}}
}

// Revision is the revision the command is bound to: its patch set and
// commit.
func (e *Event) Revision() review.Revision {
	return review.Revision{PatchSet: e.PatchSet, Commit: e.Commit}
}

func (e *Event) String() string {
	return fmt.Sprintf("%s patch set %d, message %s by %s: %s", e.Review(), e.PatchSet, e.MessageID, e.Author, e.Decision.Verdict)
}

// Args returns the queued job of an event whose decision is Run: unique
// by review, revision and command, from the author and the message, with
// the request the command makes bound to the change, its branch and the
// patch set's commit (queue.NewJob). The repository, base and head are the
// worker's to fill in, from the change.
func (e *Event) Args() (*queue.Args, error) {
	if e.Decision.Verdict != command.Run {
		return nil, fmt.Errorf("poll: %s: not a job", e)
	}
	return e.job()
}

// ReplyArgs returns the job that posts the reply of an event whose
// decision is Refuse or Answer, on the patch set the message was written
// on: once per message (help) or per change and author (a refusal),
// however often the author writes (queue.NewJob, as for the webhook).
func (e *Event) ReplyArgs() (*queue.Args, error) {
	if v := e.Decision.Verdict; v != command.Answer && v != command.Refuse {
		return nil, fmt.Errorf("poll: %s: not a reply", e)
	}
	return e.job()
}

func (e *Event) job() (*queue.Args, error) {
	o := queue.Origin{Who: e.Author.String(), Author: strconv.Itoa(e.Author.AccountID), Message: e.MessageID, Delivery: e.MessageID}
	req := job.Request{
		Branch: e.Branch,
		Gerrit: &job.Gerrit{Server: e.Server, Change: strconv.Itoa(e.Change), Revision: e.Commit},
	}
	a, err := queue.NewJob(e.Review(), e.Revision(), e.Decision, o, req)
	if err != nil {
		return nil, fmt.Errorf("poll: %s: %w", e, err)
	}
	return a, nil
}

// A Handler takes one event: queues its job, or posts its reply. An
// error stops the poll and leaves the cursor where it was.
type Handler func(ctx context.Context, e *Event) error

// errNoHandler is Poll's error without a handler: events taken by nobody
// would be lost once the cursor moved.
var errNoHandler = errors.New("poll: Poll needs a handler")

// Poll reads the messages written since the cursor, in the order of their
// dates, and calls handle with an event for each one that holds a
// command; then it advances the cursor past every message it read, and
// returns the events. If handle fails, Poll returns the events handled
// before and the error, and the cursor does not move: the next poll gives
// the same events again. If a read fails (the query, a group lookup),
// Poll returns the error and calls handle for none.
func (p *Poller) Poll(ctx context.Context, handle Handler) ([]*Event, error) {
	if handle == nil {
		return nil, errNoHandler
	}
	p.mu.Lock()
	defer p.mu.Unlock()

	cur, err := p.opts.Store.Load()
	if err != nil {
		return nil, err
	}
	if cur.IsZero() {
		start := p.opts.Start
		if start.IsZero() {
			start = p.opts.Now()
		}
		cur.Since = start.UTC()
	}
	from := cur.Since.Add(-p.opts.Overlap)
	changes, err := p.g.ChangesUpdatedSince(ctx, p.opts.Query, from, p.opts.PageSize)
	if err != nil {
		return nil, err
	}
	msgs := unread(changes, from, cur.Seen)

	next := Cursor{Since: cur.Since, Seen: maps.Clone(cur.Seen)}
	if next.Seen == nil {
		next.Seen = map[string]time.Time{}
	}
	l := &lookup{g: p.g, group: p.opts.Trust.GerritGroup, known: map[int]command.Membership{}}
	var events []*Event
	for _, m := range msgs {
		next.Seen[m.msg.ID] = m.msg.Date
		if m.msg.Date.After(next.Since) {
			next.Since = m.msg.Date
		}
		e, err := p.event(ctx, m.change, m.msg, l)
		if err != nil {
			return nil, err
		}
		if e != nil {
			events = append(events, e)
		}
	}
	for i, e := range events {
		if err := handle(ctx, e); err != nil {
			return events[:i], fmt.Errorf("poll: %s: %w (the cursor stays: the next poll gives it again)", e, err)
		}
	}

	// Another poller on the same store may have saved since the load:
	// keep what both have read. A race between the two saves can only
	// move the cursor back, so a message is given again, never lost.
	saved, err := p.opts.Store.Load()
	if err != nil {
		return events, err
	}
	if err := p.opts.Store.Save(merge(saved, next, p.opts.Overlap)); err != nil {
		return events, err
	}
	return events, nil
}

// A message is a review message and the change it is on.
type message struct {
	change *review.ChangeMessages
	msg    *review.ChangeMessage
}

// unread returns the messages of changes dated at or after from whose ids
// are not in seen, oldest first.
func unread(changes []review.ChangeMessages, from time.Time, seen map[string]time.Time) []message {
	var out []message
	done := map[string]bool{}
	for i := range changes {
		c := &changes[i]
		for j := range c.Messages {
			m := &c.Messages[j]
			if m.ID == "" || m.Date.Before(from) || done[m.ID] {
				continue
			}
			if _, ok := seen[m.ID]; ok {
				continue
			}
			done[m.ID] = true
			out = append(out, message{c, m})
		}
	}
	// Gerrit dates messages to the second (NoteDb's commit times), so
	// many share a date: within a change, its own order is kept.
	slices.SortStableFunc(out, func(a, b message) int {
		return cmp.Or(a.msg.Date.Compare(b.msg.Date), cmp.Compare(a.change.Number, b.change.Number))
	})
	return out
}

// event decides what to do with a message, and returns its event, or nil
// for a message that is ignored.
func (p *Poller) event(ctx context.Context, c *review.ChangeMessages, m *review.ChangeMessage, l *lookup) (*Event, error) {
	gm := command.GerritMessage{Tag: m.Tag, AccountID: m.AccountID, Username: m.Username, Email: m.Email, Message: m.Text}
	d := p.opts.Trust.Gerrit(gm)
	if d.Verdict == command.Lookup {
		var err error
		if gm.Group, err = l.member(ctx, m.AccountID); err != nil {
			return nil, err
		}
		d = p.opts.Trust.Gerrit(gm)
	}
	commit := c.Commits[m.PatchSet]
	if d.Verdict == command.Ignore || commit == "" {
		// A message on no patch set the change lists is Gerrit's own,
		// not a reviewer's: there is nothing it could be bound to.
		return nil, nil
	}
	return &Event{
		Server:          p.g.URL(),
		Change:          c.Number,
		Project:         c.Project,
		Branch:          c.Branch,
		URL:             c.URL,
		MessageID:       m.ID,
		Author:          Author{AccountID: m.AccountID, Username: m.Username, Email: m.Email, Name: m.Name},
		Date:            m.Date,
		Text:            m.Text,
		PatchSet:        m.PatchSet,
		Commit:          commit,
		CurrentPatchSet: c.CurrentPatchSet,
		CurrentCommit:   c.CurrentCommit(),
		Decision:        d,
	}, nil
}

// lookup asks the server whether accounts are in the group, once per
// account in a poll.
type lookup struct {
	g     Gerrit
	group string
	known map[int]command.Membership
}

func (l *lookup) member(ctx context.Context, account int) (command.Membership, error) {
	if account == 0 {
		return command.NotMember, nil
	}
	if m, ok := l.known[account]; ok {
		return m, nil
	}
	in, err := l.g.InGroup(ctx, l.group, strconv.Itoa(account))
	if err != nil {
		return command.Unknown, err
	}
	m := command.NotMember
	if in {
		m = command.Member
	}
	l.known[account] = m
	return m, nil
}
