package lint

import (
	"regexp"
	"strings"
	"sync"
)

// An input that carries the caller's own identity lets a model act as
// anyone: identity must come from the caller's verified token, bound with
// `identity: sub` in the override file. These patterns find such inputs
// in real specs; they are deliberately narrow (X- headers named for a
// user, and descriptions saying the value is the signed-in user), since a
// customer_id query filter is an ordinary input.
var (
	identityNouns    = `(user|member|customer|account|caller|principal|subject|actor|patient|employee|person|student|player)`
	identityHeaderRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^x[-_](acting[-_]|current[-_])?` + identityNouns + `([-_]?(id|no|number|key))?$`)
	})
	whoRE          = `(signed[- ]in|logged[- ]in|authenticated|acting|calling|requesting|current)\s+` + identityNouns
	identityDescRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(the\s+)?` + whoRE + `\b|` +
			`\b(id|identifier|number) of the ` + whoRE + `\b|` +
			`\b` + whoRE + `'s (id|identifier|number)\b|` +
			`\bset from the (signed|logged)[- ]in\b`)
	})
)

// identityWords: every match of identityDescRE holds one of them, case
// aside.
var identityWords = []string{"signed", "logged", "authenticated", "acting", "calling", "requesting", "current"}

// CallerIdentity reports an input whose name or description says it is
// the caller's own identity. Callers skip inputs with an enum: a choice
// among fixed values is never an identity.
func CallerIdentity(name, description string) bool {
	description = strings.TrimSpace(description)
	return identityHeaderRE().MatchString(strings.TrimSpace(name)) ||
		!cannotMatch(description, true, identityWords) && identityDescRE().MatchString(description)
}
