package port

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/patchbot/patchbot/internal/gitexec"
)

var identRE = regexp.MustCompile(`^(.*?) ?<([^<>]*)> (-?\d+) ([+-])(\d\d)(\d\d)$`)

// gitIdent returns the identity git itself would use for the committer in
// the repository at dir ('git var GIT_COMMITTER_IDENT': the GIT_COMMITTER_*
// variables, then the repository's, user's and system's configuration),
// with its date (GIT_COMMITTER_DATE, or now) and zone.
func gitIdent(dir, which string) (object.Signature, error) {
	out, err := gitCommand(dir, nil, "var", which).Output(context.Background())
	if err != nil {
		e := err.(*gitexec.Error)
		msg := strings.TrimSpace(e.Stderr)
		if msg == "" {
			msg = e.Err.Error()
		}
		return object.Signature{}, fmt.Errorf("finding the committer identity with 'git var %s': %s (set user.name and user.email with git config)", which, msg)
	}
	return parseIdent(strings.TrimSpace(out))
}

// parseIdent parses "Name <email> UNIXTIME +hhmm".
func parseIdent(s string) (object.Signature, error) {
	m := identRE.FindStringSubmatch(s)
	if m == nil {
		return object.Signature{}, fmt.Errorf("cannot parse identity %q", s)
	}
	sec, _ := strconv.ParseInt(m[3], 10, 64)
	hh, _ := strconv.Atoi(m[5])
	mm, _ := strconv.Atoi(m[6])
	off := hh*3600 + mm*60
	if m[4] == "-" {
		off = -off
	}
	return object.Signature{
		Name:  m[1],
		Email: m[2],
		When:  time.Unix(sec, 0).In(time.FixedZone(m[4]+m[5]+m[6], off)),
	}, nil
}

var userRE = regexp.MustCompile(`^([^<>]*?)\s*<([^<>]*)>\s*([^<>]*)$`)

// parseUser turns a Mercurial user, which may be any string, into a Git
// name and e-mail address: "Name <email>" splits; a bare address is used
// as both (Git needs a name); anything else is a name with an empty
// address, which Git accepts (git am refuses such users; patchbot ports
// them as they are rather than inventing an address).
func parseUser(user string) (name, email string) {
	user = strings.TrimSpace(user)
	if m := userRE.FindStringSubmatch(user); m != nil {
		name, email = strings.TrimSpace(m[1]+" "+m[3]), m[2]
		if name == "" {
			name = email
		}
		return clean(name), clean(email)
	}
	if strings.Contains(user, "@") && !strings.ContainsAny(user, " \t") {
		return clean(user), clean(user)
	}
	return clean(user), ""
}

// clean removes what cannot appear in a Git identity.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', '\n', '\r', 0:
			return -1
		}
		return r
	}, s)
}
