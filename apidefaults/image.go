package apidefaults

import (
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// pullPolicyFor is the pull policy the API server gives an image reference
// without one: Always when the reference parses and its tag is latest,
// written or implied (no tag and no digest); IfNotPresent otherwise, also
// when it does not parse. It mirrors SetDefaults_Container, which reads the
// tag with pkg/util/parsers.ParseImageName (the Docker reference grammar of
// github.com/distribution/reference, ParseNormalizedNamed).
func pullPolicyFor(image string) v1.PullPolicy {
	tag, digest, ok := parseReference(image)
	if ok && (tag == "latest" || (tag == "" && digest == "")) {
		return v1.PullAlways
	}
	return v1.PullIfNotPresent
}

// The Docker image reference grammar (distribution/reference v0.6.0),
// written out here. The structure of each expression, alternatives and
// quantifiers in the same order, is kept, so that Go's leftmost-first
// submatch rules pick the same split into domain, path, tag and digest.
var (
	refRepoPart  = `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	refRepoPath  = refRepoPart + `(?:/` + refRepoPart + `)*`
	refHostLabel = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refHost      = `(?:` + refHostLabel + `(?:\.` + refHostLabel + `)*` + `|` + `\[(?:[a-fA-F0-9:]+)\]` + `)`
	refDomain    = refHost + `(?::[0-9]+)?`
	refTag       = `[\w][\w.-]{0,127}`
	refDigest    = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	refName      = `(?:` + refDomain + `/)?` + refRepoPath

	// whole reference: name, tag, digest
	referenceRE = regexp.MustCompile(`^(` + refName + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	// a name split into domain and path
	nameRE = regexp.MustCompile(`^(?:(` + refDomain + `)/)?(` + refRepoPath + `)$`)
	// a bare 64-hex identifier, refused as a name
	identifierRE = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// the encoded part of each supported digest algorithm
	digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
	lowerHexRE   = regexp.MustCompile(`^[a-f0-9]+$`)
)

// parseReference returns the tag and digest of a Docker image reference
// and whether it parses, as ParseNormalizedNamed followed by
// ParseImageName's reading of it.
func parseReference(s string) (tag, digest string, ok bool) {
	if tag, ok := simpleReference(s); ok {
		return tag, "", true
	}
	return parseReferenceRE(s)
}

// simpleReference reads the commonest references, one lower-case path
// component with an optional tag ("nginx", "busybox:1.36"), without the
// regular expressions (they allocate, and every pod created reads its
// images): ok with the tag for such a reference, which parses (under
// docker.io/library/), and false for any other, left to parseReferenceRE.
// TestSimpleReference compares the two.
func simpleReference(s string) (tag string, ok bool) {
	name, tag, hasTag := strings.Cut(s, ":")
	switch {
	case !repoComponent(name), len("library/")+len(name) > 255, hasTag && !validTag(tag):
		return "", false
	case len(s) == 64 && strings.Trim(s, "0123456789abcdef") == "":
		return "", false // a bare identifier, refused as a name
	}
	return tag, true
}

// repoComponent reports whether s matches refRepoPart: runs of lower-case
// letters and digits joined by one '.', one or two '_', or any number of
// '-'.
func repoComponent(s string) bool {
	i := 0
	for {
		start := i
		for i < len(s) && ('a' <= s[i] && s[i] <= 'z' || '0' <= s[i] && s[i] <= '9') {
			i++
		}
		switch {
		case i == start:
			return false // empty, or a separator not followed by a run
		case i == len(s):
			return true
		case s[i] == '.':
			i++
		case s[i] == '_':
			i++
			if i < len(s) && s[i] == '_' {
				i++
			}
		case s[i] == '-':
			for i < len(s) && s[i] == '-' {
				i++
			}
		default:
			return false
		}
	}
}

// validTag reports whether t matches refTag: a word character, then up to
// 127 word characters, dots and dashes.
func validTag(t string) bool {
	if len(t) == 0 || len(t) > 128 || t[0] == '.' || t[0] == '-' {
		return false
	}
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// parseReferenceRE is parseReference through the grammar's regular
// expressions, for any reference.
func parseReferenceRE(s string) (tag, digest string, ok bool) {
	if identifierRE.MatchString(s) {
		return "", "", false
	}
	domain, rest := splitDomain(s)
	// Upper case before the tag is refused here; the grammar below would
	// refuse it too (only the reason differs), so this check never changes
	// the answer, and a plant that drops it goes unnoticed by design.
	repo, _, _ := strings.Cut(rest, ":")
	if strings.ToLower(repo) != repo {
		return "", "", false
	}
	m := referenceRE.FindStringSubmatch(domain + "/" + rest)
	if m == nil {
		return "", "", false
	}
	path := m[1]
	if n := nameRE.FindStringSubmatch(m[1]); n != nil {
		path = n[2]
	}
	if len(path) > 255 {
		return "", "", false
	}
	tag, digest = m[2], m[3]
	if digest != "" && !validDigest(digest) {
		return "", "", false
	}
	return tag, digest, true
}

// splitDomain splits a reference into the registry domain and the rest, the
// Docker way: a first component that is localhost, or contains a dot or a
// colon, or has an upper-case letter is a domain; otherwise the domain is
// docker.io, and a single-component name lives under library/.
func splitDomain(s string) (domain, rest string) {
	first, after, found := strings.Cut(s, "/")
	if !found {
		return "docker.io", "library/" + s
	}
	switch {
	case first == "localhost":
		domain, rest = first, after
	case first == "index.docker.io":
		domain, rest = "docker.io", after
	case strings.ContainsAny(first, ".:"):
		domain, rest = first, after
	case strings.ToLower(first) != first:
		domain, rest = first, after
	default:
		domain, rest = "docker.io", s
	}
	if domain == "docker.io" && !strings.Contains(rest, "/") {
		rest = "library/" + rest
	}
	return domain, rest
}

// validDigest reports whether a digest the grammar accepted names sha256,
// sha384 or sha512 with the right number of lower-case hex digits (the
// check of github.com/opencontainers/go-digest, Digest.Validate).
func validDigest(d string) bool {
	alg, hex, _ := strings.Cut(d, ":")
	n, ok := digestHexLen[alg]
	return ok && len(hex) == n && lowerHexRE.MatchString(hex)
}
