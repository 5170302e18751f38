package fastpath

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
)

// The fast paths copy what go-sdk answers, byte for byte, for the
// versions their differential tests (TestFastPathMatchesSDK,
// TestHTTPFastPathMatchesSDK and the seeded TestHTTPFastPathHeaderSets
// in package runtime) ran against. A module that links another go-sdk
// would get the old behaviour copied silently, so the fast paths run
// only when all of these hold, else every call goes to the SDK:
//
//   - the binary was built without the build tag oa2mcp_nofastpath
//     (Compiled; the code is then unreachable and left out);
//   - Options.NoFastPath is false and $PREFIX_FAST_PATH is "" or "on";
//   - the go-sdk the binary links is one of SDKVersions.
//
// The linked version comes from the binary's build information. A
// go-sdk replaced by another module version counts as that version; one
// replaced by a directory, or a binary that records no go-sdk at all
// although it records its dependencies, counts as untested. go test
// binaries record no dependencies (debug.ReadBuildInfo lists none); for
// them the fast paths trust the version this module requires
// (sdkRequiredVersion, which TestSDKRequiredVersion keeps equal to
// go.mod), so a user's module tests whatever its own binary would serve
// only when its go.mod does not raise go-sdk: run such tests with
// $PREFIX_FAST_PATH=off or -tags oa2mcp_nofastpath once as well.

// SDKVersions are the go-sdk versions the differential tests cover.
// Add one only after running them against it.
func SDKVersions() []string { return []string{"v1.8.0"} }

// sdkRequiredVersion is the go-sdk version runtime/go.mod requires.
const sdkRequiredVersion = "v1.8.0"

// sdkModule is go-sdk's module path.
const sdkModule = "github.com/modelcontextprotocol/go-sdk"

// LinkedSDKVersion is the go-sdk version info records, "" when it
// records none it can be sure of (see the top of this file).
func LinkedSDKVersion(info *debug.BuildInfo) string {
	if info == nil {
		return ""
	}
	if len(info.Deps) == 0 {
		return sdkRequiredVersion // a go test binary: no dependency list
	}
	for _, d := range info.Deps {
		if d.Path != sdkModule {
			continue
		}
		if d.Replace != nil {
			return d.Replace.Version // "" for a directory
		}
		return d.Version
	}
	return ""
}

// OffReason says why the fast paths stay off, "" when they run. It is
// an error when $PREFIX_FAST_PATH (envName, holding envValue) is
// neither on nor off.
func OffReason(noFastPath bool, envName, envValue, sdkVersion string) (string, error) {
	switch strings.ToLower(envValue) {
	case "", "on":
	case "off":
		return "$" + envName + " is off", nil
	default:
		return "", fmt.Errorf("$%s is %q; set it to on or off (off sends every call through go-sdk)", envName, envValue)
	}
	switch {
	case !Compiled:
		return "built with -tags oa2mcp_nofastpath", nil
	case noFastPath:
		return "Options.NoFastPath is set", nil
	case sdkVersion == "":
		return "the linked go-sdk version is unknown (replaced by a directory, or not recorded)", nil
	case !slices.Contains(SDKVersions(), sdkVersion):
		return fmt.Sprintf("the linked go-sdk %s is not one its differential tests cover (%s)", sdkVersion, strings.Join(SDKVersions(), ", ")), nil
	}
	return "", nil
}
