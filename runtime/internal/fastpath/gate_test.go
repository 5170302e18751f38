package fastpath

import (
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// TestLinkedSDKVersion reads go-sdk's version from build information as
// binaries record it: plain, replaced by a module version or a
// directory, missing, and a go test binary's empty dependency list.
func TestLinkedSDKVersion(t *testing.T) {
	dep := func(v string, rep *debug.Module) *debug.Module {
		return &debug.Module{Path: sdkModule, Version: v, Replace: rep}
	}
	other := &debug.Module{Path: "golang.org/x/oauth2", Version: "v0.37.0"}
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build information", nil, ""},
		{"go test binary", &debug.BuildInfo{Main: debug.Module{Path: "m", Version: "(devel)"}}, sdkRequiredVersion},
		{"linked", &debug.BuildInfo{Deps: []*debug.Module{other, dep("v1.8.0", nil)}}, "v1.8.0"},
		{"newer", &debug.BuildInfo{Deps: []*debug.Module{dep("v1.9.0", nil)}}, "v1.9.0"},
		{"replaced by a version", &debug.BuildInfo{Deps: []*debug.Module{dep("v1.8.0", &debug.Module{Path: "example.com/fork", Version: "v1.8.1-fork"})}}, "v1.8.1-fork"},
		{"replaced by a directory", &debug.BuildInfo{Deps: []*debug.Module{dep("v1.8.0", &debug.Module{Path: "../go-sdk"})}}, ""},
		{"not linked", &debug.BuildInfo{Deps: []*debug.Module{other}}, ""},
	} {
		if got := LinkedSDKVersion(c.info); got != c.want {
			t.Errorf("%s: linked version %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFastPathGateRefusesUntestedSDK: the gate lets the fast paths run
// only for a go-sdk the differential tests cover, and each switch turns
// them off whatever the version.
func TestFastPathGateRefusesUntestedSDK(t *testing.T) {
	for _, c := range []struct {
		noFast  bool
		env     string
		version string
		on      bool
	}{
		{false, "", "v1.8.0", Compiled},
		{false, "on", "v1.8.0", Compiled},
		{false, "ON", "v1.8.0", Compiled},
		{false, "off", "v1.8.0", false},
		{false, "Off", "v1.8.0", false},
		{true, "", "v1.8.0", false},
		{true, "on", "v1.8.0", false},
		{false, "", "v1.9.0", false},
		{false, "on", "v1.8.1", false},
		{false, "", "v1.8.0-rc.1", false},
		{false, "", "v1.99.0-fake", false},
		{false, "", "", false},
	} {
		why, err := OffReason(c.noFast, "P_FAST_PATH", c.env, c.version)
		if err != nil {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		if on := why == ""; on != c.on {
			t.Errorf("%+v: fast path on %v (reason %q), want %v", c, on, why, c.on)
		}
		if !c.noFast && c.env == "" && c.version != "v1.8.0" && Compiled && !strings.Contains(why, "go-sdk") {
			t.Errorf("%+v: the reason %q does not name go-sdk", c, why)
		}
	}
	_, err := OffReason(false, "P_FAST_PATH", "maybe", "v1.8.0")
	if err == nil || !strings.Contains(err.Error(), "$P_FAST_PATH") || !strings.Contains(err.Error(), "on or off") {
		t.Errorf("a bad $P_FAST_PATH gave %v, want an error naming it and its values", err)
	}
}

// TestSDKRequiredVersion: the version a go test binary trusts is the
// one go.mod requires, and the differential tests cover it.
func TestSDKRequiredVersion(t *testing.T) {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^(?:require)?\s*` + regexp.QuoteMeta(sdkModule) + `\s+(\S+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatalf("go.mod requires no %s", sdkModule)
	}
	if string(m[1]) != sdkRequiredVersion {
		t.Errorf("go.mod requires %s %s; sdkRequiredVersion is %s: run the differential tests against it and update both", sdkModule, m[1], sdkRequiredVersion)
	}
	if !slices.Contains(SDKVersions(), sdkRequiredVersion) {
		t.Errorf("the required go-sdk %s is not among the tested %v", sdkRequiredVersion, SDKVersions())
	}
}
