package lint

import "regexp"

// Prepare compiles the patterns lint's rules read descriptions with,
// which are otherwise compiled on first use: about a millisecond in all,
// a twentieth of generating a small API. A caller with a core to spare
// before Check (generate, while the document loads on the other) calls
// it in the background; Check never needs it.
func Prepare() {
	for _, p := range patterns {
		p()
	}
}

// patterns are every compiled pattern of the package
// (TestPrepareCompilesEveryPattern finds them in the source).
var patterns = []func() *regexp.Regexp{
	whenToUseRE, whenNotRE, notReturnRE, urlPathRE, urlRE, httpVerbRE, endpointRE,
	identityHeaderRE, identityDescRE, exampleRE, nameRE, lifetimeRE, confirmRE, returnsIDRE,
}
