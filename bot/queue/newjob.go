package queue

import (
	"fmt"
	"strings"

	"github.com/patchbot/patchbot/bot/command"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// The commands of the reply jobs, beside the comment commands (bench,
// freeze) of the jobs that run something.
const (
	CommandHelp   = "help"   // the help text, to help or to a command not understood
	CommandRefuse = "refuse" // the refusal, to an author who may not ask
)

// An Origin is where a command came from.
type Origin struct {
	// Who is the author as logs and the status page name them: a
	// GitHub login, a Gerrit account.
	Who string
	// Author is the author's stable name on the review server (a GitHub
	// login, a Gerrit account id): an author gets one refusal per review,
	// however often they write.
	Author string
	// Message is the comment's or review message's id: a message gets one
	// help reply.
	Message string
	// Delivery is the event that carried it: a webhook's delivery id, a
	// Gerrit message id.
	Delivery string
}

// NewJob turns a decision on a command into its job, for the webhook, the
// poller and sweep alike. For Run, the command's job, bound to rev: its
// request is req with the command applied (req names the review's target
// for the post step: job.Request.GitHub or Gerrit, and what the caller
// already knows, the branch). For Answer and Refuse, the reply: the post
// step alone on req's target, once per message (help) or once per author
// (refusal): bound to no revision, it is unique by its ReplyKey
// (MessageKey, AuthorKey). Ignore and Lookup make no job.
func NewJob(t review.Target, rev review.Revision, d command.Decision, o Origin, req job.Request) (*Args, error) {
	a := &Args{Review: t, Who: o.Who, Delivery: o.Delivery, Message: o.Message}
	switch d.Verdict {
	case command.Run:
		if d.Command == nil {
			return nil, fmt.Errorf("queue: %s: a decision to run without a command", t)
		}
		if rev.IsZero() {
			return nil, fmt.Errorf("queue: %s: %s is not bound to a revision", t, d.Command.Name)
		}
		d.Command.Apply(&req)
		a.Revision, a.Command, a.Options, a.Request = rev, d.Command.Name, strings.Join(d.Command.Args, " "), req
	case command.Answer, command.Refuse:
		if d.Reply == "" {
			return nil, fmt.Errorf("queue: %s: no reply to post", t)
		}
		var kind string
		if d.Verdict == command.Answer {
			if o.Message == "" {
				return nil, fmt.Errorf("queue: %s: help for no message", t)
			}
			a.Reply, a.Command, kind = MessageKey(o.Message), CommandHelp, "help-"+review.KindPart(o.Message)
		} else {
			if o.Author == "" {
				return nil, fmt.Errorf("queue: %s: a refusal of no author", t)
			}
			a.Reply, a.Command, kind = AuthorKey(o.Author), CommandRefuse, "refusal-"+review.KindPart(o.Author)
		}
		a.Request = job.Request{
			Steps:  []string{job.StepPost},
			Post:   job.PostSettings{Kind: kind, Text: d.Reply},
			GitHub: req.GitHub,
			Gerrit: req.Gerrit,
		}
	default:
		return nil, fmt.Errorf("queue: %s: a decision to %s makes no job", t, d.Verdict)
	}
	return a, nil
}
