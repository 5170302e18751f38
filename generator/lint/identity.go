package lint

import (
	"regexp"
	"strings"
)

// An input that carries the caller's own identity lets a model act as
// anyone: identity must come from the caller's verified token, bound with
// `identity: sub` in the override file. These patterns find such inputs
// in real specs; they are deliberately narrow (X- headers named for a
// user, and descriptions saying the value is the signed-in user), since a
// customer_id query filter is an ordinary input.
var (
	identityHeaderRE = regexp.MustCompile(`(?i)^x[-_](acting[-_])?(user|member|customer|account|caller|principal|subject|actor)([-_]?(id|no|number|key))?$`)
	identityDescRE   = regexp.MustCompile(`(?i)\b(signed[- ]in|logged[- ]in|authenticated|acting|calling|requesting) (user|member|customer|account|caller|person|principal)\b|\b(the caller|the current user)'?s? (own )?(id|identity|identifier)\b|\bset from the (signed|logged)`)
)

// CallerIdentity reports an input whose name or description says it is
// the caller's own identity.
func CallerIdentity(name, description string) bool {
	return identityHeaderRE.MatchString(strings.TrimSpace(name)) || identityDescRE.MatchString(description)
}
