package main

import (
	"errors"
	"regexp"

	"github.com/patchbot/patchbot/config"
	"github.com/patchbot/patchbot/workflow/job"
)

// runRequestFlags names the flag of 'patchbot run' that sets each field of
// a job.Request, so that the library's errors, which name fields, become
// advice about flags.
var runRequestFlags = map[string]string{
	"repo":                "-repo",
	"onto":                "-onto",
	"patches":             "PATCH",
	"branch":              "-for",
	"at":                  "-at",
	"bench.count":         "-count",
	"bench.benchtime":     "-benchtime",
	"bench.bench":         "-bench",
	"bench.packages":      "-pkg",
	"bench.out_dir":       "-o",
	"gerrit.server":       "-gerrit",
	"gerrit.change":       "-change",
	"gerrit.push":         "-push",
	"gerrit.push.project": "-project",
	"github":              "-github",
	"github.pull_request": "-github",
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// jobError turns an error of job.Prepare into the command's: a field of
// the request becomes the flag that sets it, a usage error; a setup
// problem (credentials) exits 2 without the usage line.
func jobError(err error, flags map[string]string) error {
	name := func(field string) string {
		if f, ok := flags[indexRE.ReplaceAllString(field, "")]; ok {
			return f
		}
		return field
	}
	if fe, ok := errors.AsType[*job.FieldError](err); ok {
		return usagef("%s", (&job.FieldError{Field: name(fe.Field), Value: fe.Value, Reason: fe.Reason}).Error())
	}
	if se, ok := errors.AsType[*job.SetupError](err); ok {
		return setupError{errors.New(name(se.Field) + ": " + se.Err.Error())}
	}
	if _, ok := errors.AsType[*config.Error](err); ok {
		return err
	}
	return setupError{err}
}
