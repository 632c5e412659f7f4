package job

import (
	"io"
	"time"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/step/review"
)

// NewClients returns a process's review clients: retries and timeouts
// from the configuration's review section, patchbot's own GitHub account
// from serve.github.login, the credentials getenv gives (nil: os.Getenv),
// dry-run as asked, and each retry (and, in a dry run, each write not
// done) logged as a line to log.
func NewClients(cfg *config.Config, getenv func(string) string, dryRun bool, log io.Writer) *review.Clients {
	if getenv == nil {
		getenv = osGetenv
	}
	o := reviewOptions(&cfg.Review, dryRun, log)
	o.GitHubLogin = cfg.Serve.GitHub.Login
	return review.NewClients(getenv, o)
}

// reviewOptions returns the options of a review client: retries and
// timeouts from the configuration, dry-run as asked, and each retry (and,
// in a dry run, each write not done) logged as a line to log.
func reviewOptions(rc *config.Review, dryRun bool, log io.Writer) review.Options {
	return review.Options{
		DryRun: dryRun,
		Log:    log,
		Policy: review.Policy{
			Attempts:   rc.Attempts,
			Backoff:    rc.Backoff,
			MaxBackoff: max(30*time.Second, rc.Backoff),
			MaxWait:    rc.MaxWait,
		},
		Timeout: rc.Timeout,
	}
}

// clients returns the job's review clients: env.Clients, the process's,
// or, when it is nil, clients made for the job from cfg, env's credentials
// and env's log. A dry run's clients write nothing.
func (env Env) clients(cfg *config.Config, dryRun bool) *review.Clients {
	switch {
	case env.Clients == nil:
		return NewClients(cfg, env.Getenv, dryRun, env.Log)
	case dryRun:
		return env.Clients.WithDryRun()
	}
	return env.Clients
}
