// Package serve is the HTTP front of 'patchbot serve': GitHub's webhook,
// which turns a pull-request comment into a queued job, and the status
// endpoints.
//
// Data flows one way. A delivery to POST /webhook/github is checked (its
// signature over the exact body, its size, its content type; the bodies
// read at once before their signatures are checked are bounded, see
// Config.MaxBodyReads), its
// issue_comment event decoded, its command parsed and authorised
// (bot/command's Trust, with the author's permission looked up
// through step/review when the decision needs it), bound to the pull
// request's head commit read at once, and inserted into the queue
// (bot/queue) as a queue.Args. The answer is sent when the job is in
// the queue: a 202 means it is stored, and anything that kept it from
// being stored is an error status that GitHub's delivery log shows, so that
// a delivery is redelivered rather than lost. The work itself (benchmarks,
// replies) is done by the queue's workers.
//
// Replies that are not a job's result (the help text for a command that was
// not understood, the refusal to a stranger) are queued too, as jobs that
// post one text (job.Request's post step, with a kind of their own), so
// that they are posted once by the same code path as every other reply,
// survive a restart, and cost the webhook no write to GitHub.
//
// GET /healthz, GET /api/jobs, GET /api/queue and GET / (a status page
// without JavaScript) read the queue; GET /api/series and the page's plots
// read the tracked branches' histories (step/track's Store). Run
// assembles the whole bot for 'patchbot serve'.
package serve

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/bot/queue"
	"github.com/patchbot/patchbot/bot/work"
	"github.com/patchbot/patchbot/step/review"
)

// EnvWebhookSecret is the environment variable that holds the webhook's
// secret, the one set in GitHub's webhook settings.
const EnvWebhookSecret = "PATCHBOT_WEBHOOK_SECRET"

// Defaults of Config.
const (
	// DefaultMaxBody caps a delivery's body. An issue_comment payload
	// is a comment of at most 65,536 characters (up to 256 KiB of UTF-8,
	// more once JSON-escaped) and the issue, repository and users around
	// it; 1 MiB holds the largest with room to spare.
	DefaultMaxBody = 1 << 20
	// DefaultMaxBodyReads bounds the bodies read at once before their
	// signature is checked: with DefaultMaxBody, 16 MiB at most, however
	// many connections are open. A body behind a buffering proxy, or from
	// GitHub directly, takes milliseconds to read, so 16 slots serve
	// hundreds of deliveries a second; see docs/deploy.md.
	DefaultMaxBodyReads = 16
	// DefaultMaxBodyReadsPerAddr bounds the slots one remote address
	// holds at once: slow connections from one place cannot take them
	// all and lock GitHub's deliveries out (GitHub sends from many
	// addresses, and does not redeliver by itself).
	DefaultMaxBodyReadsPerAddr = 4
	// DefaultBodyWait is how long a delivery waits for a free slot before
	// it is answered 503: a burst of GitHub's deliveries waits its turn
	// rather than fails, since GitHub does not redeliver by itself.
	DefaultBodyWait = time.Second
	// DefaultBodyTimeout is how long a delivery that holds a slot may take
	// to send its body: GitHub sends it at once, and one that dribbles it
	// keeps others from their slot.
	DefaultBodyTimeout = 5 * time.Second
	// DefaultLookupTimeout bounds the reads from GitHub that one
	// delivery makes (the author's permission, the pull request's
	// head), retries included: GitHub waits 10 s for an answer.
	DefaultLookupTimeout = 8 * time.Second
	// DefaultMaxCommentAge is how old a comment may be when its command
	// is bound to the pull request's head: the head is read when the
	// event arrives, so a delivery that arrives late (a redelivery an
	// hour after an outage) might bind the command to commits pushed
	// after it was written.
	DefaultMaxCommentAge = 10 * time.Minute
)

// A Queue is what the handler uses of the job queue; *queue.Queue is one.
type Queue interface {
	Insert(ctx context.Context, a *queue.Args) (queue.InsertResult, error)
	Jobs(ctx context.Context, limit int) ([]queue.JobInfo, error)
	Depth(ctx context.Context, limit int) (int, error)
	ID() string
	Leader(ctx context.Context) (queue.Leader, bool, error)
	// Check says whether the queue can store a job now.
	Check(ctx context.Context) error
	// Job returns a job by its id.
	Job(ctx context.Context, id int64) (queue.JobInfo, error)
	// JobOfMessage returns the job a comment made, if any.
	JobOfMessage(ctx context.Context, t review.Target, message string) (queue.JobInfo, bool, error)
}

var _ Queue = (*queue.Queue)(nil)

// Heads is where the handler records pull requests' heads and reads when
// one was learned (queue.Queue.RecordHead, HeadSeen).
type Heads interface {
	RecordHead(ctx context.Context, pr, sha string, at time.Time) error
	HeadSeen(ctx context.Context, pr, sha string) (at time.Time, known bool, err error)
}

var _ Heads = (*queue.Queue)(nil)

// A GitHub is what the handler reads from GitHub; *review.GitHub is one.
type GitHub interface {
	PermissionLevel(ctx context.Context, owner, repo, login string) (string, error)
	PullRequestHead(ctx context.Context, pr review.PullRequest) (review.PullRequestHead, error)
}

var _ GitHub = (*review.GitHub)(nil)

// Config configures a Handler.
type Config struct {
	// Secret is the webhook's secret: every delivery must be signed with
	// it (X-Hub-Signature-256). It is required.
	Secret []byte
	// MaxBody caps a delivery's body; 0 is DefaultMaxBody.
	MaxBody int64
	// MaxBodyReads bounds the deliveries whose bodies are read at once,
	// before their signatures can be checked; a delivery that finds none
	// of them free within BodyWait is answered 503, with Retry-After, and
	// its body is not read. 0 is DefaultMaxBodyReads.
	MaxBodyReads int
	// MaxBodyReadsPerAddr bounds the slots one remote address (the
	// connection's, r.RemoteAddr) holds at once; a delivery from an
	// address that holds as many is answered 503 at once. 0 is
	// DefaultMaxBodyReadsPerAddr, or MaxBodyReads when that is smaller.
	// Behind a proxy every delivery comes from its address: the proxy
	// buffers bodies (docs/deploy.md), so each slot is held for
	// microseconds, and a larger bound costs nothing.
	MaxBodyReadsPerAddr int
	// BodyWait is how long a delivery waits for one of MaxBodyReads; 0
	// is DefaultBodyWait.
	BodyWait time.Duration
	// BodyTimeout bounds the time a delivery takes to send its body once
	// it is being read (408 beyond it); 0 is DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Queue receives the jobs and lists them for the status endpoints.
	Queue Queue
	// Trust says who may ask.
	Trust command.Trust
	// GitHub is read for the author's permission and the pull request's
	// head commit.
	GitHub GitHub
	// Heads records the pull requests' heads as pull_request events
	// tell them, and says when a head was learned, so that a command is
	// run only on a head that was there when it was written; nil records
	// none, and a reply then says that the commit measured may be newer
	// than the command. *queue.Queue is one.
	Heads Heads
	// Results returns what a finished job (completed, cancelled or
	// discarded) left (nil, nil: nothing); the status page shows a bench
	// job's table and plot from it. nil reads what the workers recorded
	// with the job in the queue, whichever process ran it (work.Output).
	Results func(ctx context.Context, j queue.JobInfo) (*work.Output, error)
	// Tracks are the branches patchbot track records in the queue's
	// database, which the status page plots and /api/series gives; nil
	// shows none.
	Tracks Tracks
	// Logger receives one line per delivery and per failed request; nil
	// discards them.
	Logger *slog.Logger

	// LookupTimeout bounds one delivery's reads from GitHub; 0 is
	// DefaultLookupTimeout.
	LookupTimeout time.Duration
	// MaxCommentAge is how old a comment may be for its command to run;
	// 0 is DefaultMaxCommentAge.
	MaxCommentAge time.Duration
	// Now returns the current time; nil is time.Now.
	Now func() time.Time
}

// A Handler serves the webhook and the status endpoints:
//
//	POST /webhook/github  GitHub's deliveries
//	GET  /healthz         200 when the queue can take a job (queue.Queue.Check); 503 and why
//	GET  /api/jobs        the recent jobs, as JSON (?limit=N, at most 1000)
//	GET  /api/queue       this process and the leader among those on the queue, as JSON
//	GET  /api/series      the tracked branches' benchmark series and change points, as JSON (?track=NAME, ?unit=UNIT)
//	GET  /                the status page
type Handler struct {
	cfg   Config
	mux   *http.ServeMux
	log   *slog.Logger
	seen  *deliveries
	perms *permCache // the authors' permissions GitHub gave (perms.go)
	reads readSlots  // the bodies being read before their signature is checked
	addrs *addrReads // how many of them each remote address reads
}

// New returns a Handler. It refuses a configuration without a secret, a
// queue or a GitHub client: a webhook that anyone could call, or that could
// not do its work, must not start.
func New(cfg Config) (*Handler, error) {
	switch {
	case len(cfg.Secret) == 0:
		return nil, errors.New("serve: no webhook secret: set " + EnvWebhookSecret + " to the secret of the webhook's settings on GitHub")
	case cfg.Queue == nil:
		return nil, errors.New("serve: no queue")
	case cfg.GitHub == nil:
		return nil, errors.New("serve: no GitHub client")
	case cfg.MaxBody < 0, cfg.MaxBodyReads < 0, cfg.MaxBodyReadsPerAddr < 0, cfg.BodyWait < 0, cfg.BodyTimeout < 0, cfg.LookupTimeout < 0, cfg.MaxCommentAge < 0:
		return nil, errors.New("serve: negative limit")
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxBodyReads == 0 {
		cfg.MaxBodyReads = DefaultMaxBodyReads
	}
	if cfg.MaxBodyReadsPerAddr == 0 {
		cfg.MaxBodyReadsPerAddr = DefaultMaxBodyReadsPerAddr
	}
	cfg.MaxBodyReadsPerAddr = min(cfg.MaxBodyReadsPerAddr, cfg.MaxBodyReads)
	if cfg.BodyWait == 0 {
		cfg.BodyWait = DefaultBodyWait
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.LookupTimeout == 0 {
		cfg.LookupTimeout = DefaultLookupTimeout
	}
	if cfg.MaxCommentAge == 0 {
		cfg.MaxCommentAge = DefaultMaxCommentAge
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Results == nil {
		cfg.Results = readResults
	}
	cfg.Secret = append([]byte(nil), cfg.Secret...)
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), log: cfg.Logger,
		seen:  &deliveries{ttl: cfg.MaxCommentAge, now: cfg.Now, m: map[string]seenDelivery{}},
		perms: newPermCache(cfg.Now),
		reads: newReadSlots(cfg.MaxBodyReads),
		addrs: &addrReads{max: cfg.MaxBodyReadsPerAddr, n: map[string]int{}}}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.mux.HandleFunc("POST /webhook/github", h.webhook)
	h.mux.HandleFunc("GET /healthz", h.healthz)
	h.mux.HandleFunc("GET /api/jobs", h.apiJobs)
	h.mux.HandleFunc("GET /api/queue", h.apiQueue)
	h.mux.HandleFunc("GET /api/series", h.apiSeries)
	h.mux.HandleFunc("GET /{$}", h.status)
	return h, nil
}

// ServeHTTP serves the routes above; any other path is a 404, and another
// method on a route a 405.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

// readResults reads a finished job's output from the queue, where the
// worker recorded it.
func readResults(_ context.Context, j queue.JobInfo) (*work.Output, error) {
	return work.ReadOutput(j.Output())
}
