// Package callerenv holds the rule naming the environment setting that
// gives a local stdio server its user: the runtime's refusals and the
// generated READMEs both show it.
package callerenv

import "strings"

// Setting is the environment setting that names a local stdio
// user to tools binding claims: their id, scopes, and every claim besides
// sub, e.g. LIB_STDIO_CALLER="THEIR_USER_ID [SCOPE...] member_no=THEIR_MEMBER_NO".
// Refusals and generated READMEs both show it.
func Setting(envPrefix string, claims []string) string {
	v := "THEIR_USER_ID [SCOPE...]"
	for _, c := range claims {
		if c != "sub" {
			v += " " + c + "=THEIR_" + strings.ToUpper(c)
		}
	}
	return envPrefix + "_STDIO_CALLER=\"" + v + "\""
}
