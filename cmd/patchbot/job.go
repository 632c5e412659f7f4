package main

import (
	"errors"
	"flag"
	"regexp"
	"strings"

	"github.com/patchbot/patchbot/internal/remedy"
	"github.com/patchbot/patchbot/job"
	"github.com/patchbot/patchbot/step/review"
)

// fieldFlags names the flag that sets each field of a job.Request (and of
// a TrackRequest or BisectRequest, whose fields are named alike), so that
// the library's errors, which name fields ("{port.fuzz}", see
// internal/remedy), become advice about flags.
var fieldFlags = map[string]string{
	"gerrit":              "-gerrit",
	"name":                "-name",
	"every":               "-every",
	"max":                 "-max",
	"max_bisect":          "-max-bisect",
	"threshold":           "-threshold",
	"repo":                "-repo",
	"onto":                "-onto",
	"patches":             "PATCH",
	"branch":              "-for",
	"at":                  "-at",
	"bench.count":         "-count",
	"bench.max_count":     "-max-count",
	"bench.benchtime":     "-benchtime",
	"bench.bench":         "-bench",
	"bench.packages":      "-pkg",
	"bench.select":        "-select",
	"bench.out_dir":       "-o",
	"bench.cpu":           "-cpu",
	"bench.timeout_ns":    "-timeout",
	"bench.order":         "-order",
	"bench.seed":          "-seed",
	"bench.sandbox":       "-sandbox",
	"gerrit.server":       "-gerrit",
	"gerrit.change":       "-change",
	"gerrit.revision":     "-revision",
	"gerrit.push":         "-push",
	"gerrit.push.project": "-project",
	"github":              "-github",
	"github.pull_request": "-github",
	"port.branch":         "-branch",
	"port.checkout":       "-checkout",
	"port.fuzz":           "-fuzz",
	"port.reject_dir":     "-reject",
	"port.author":         "-author",
	"port.message":        "-m",
	"port.remaps":         "-remap",
	"post.kind":           "-kind",
}

// githubFlag returns the GitHub target -github names ("": none).
func githubFlag(s string) (*job.GitHub, error) {
	if s == "" {
		return nil, nil
	}
	pr, err := review.ParsePullRequest(s)
	if err != nil {
		return nil, usagef("-github: %v", err)
	}
	return &job.GitHub{PullRequest: pr}, nil
}

// flagFor returns the flag that sets a field, or "" when none does.
func flagFor(field string) string { return fieldFlags[indexRE.ReplaceAllString(field, "")] }

// flagWords returns how the command whose flags are fs words a remedy's
// field references (internal/remedy): as its own flag where it has one; as
// another command's ("patchbot port's -fuzz") where only that one has it;
// else as the field's name. Braces that name no field stay as written.
func flagWords(fs *flag.FlagSet) func(string) string {
	return func(field string) string {
		f := flagFor(field)
		switch {
		case f == "":
			return "{" + field + "}"
		case f == "PATCH" || fs == nil || fs.Lookup(strings.TrimPrefix(f, "-")) != nil:
			return f
		}
		if name, _, ok := strings.Cut(field, "."); ok && lookup(name) != nil {
			return "patchbot " + name + "'s " + f
		}
		return field
	}
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// jobError turns an error of the job library into the command's: a field
// of the request becomes the flag that sets it, a usage error; a setup
// problem (credentials, the configuration) exits 2 without the usage line;
// anything else is the job failing, exit 1.
// Flags that differ from fieldFlags in one command are in extra: freeze
// names the branch with -branch, not run's -for.
func jobError(err error, extra ...map[string]string) error {
	name := func(field string) string {
		for _, m := range extra {
			if f, ok := m[field]; ok {
				return f
			}
		}
		if f := flagFor(field); f != "" {
			return f
		}
		return field
	}
	if fe, ok := errors.AsType[*remedy.FieldError](err); ok {
		// A field of the request, a revision that does not resolve, a
		// branch name git refuses: the call's mistake.
		return usagef("%s", (&remedy.FieldError{Field: name(fe.Field), Value: fe.Value, Reason: fe.Reason}).Error())
	}
	if se, ok := errors.AsType[*job.SetupError](err); ok {
		// The command's own flags for the fields its message names;
		// the rest as report words them.
		msg := remedy.Word(se.Err.Error(), func(field string) string {
			for _, m := range extra {
				if f, ok := m[field]; ok {
					return f
				}
			}
			return "{" + field + "}"
		})
		inner := se.Err
		if msg != inner.Error() {
			inner = errors.New(msg)
		}
		if se.Field == "" {
			return setupError{inner}
		}
		return setupError{errors.New(name(se.Field) + ": " + msg)}
	}
	return err
}
