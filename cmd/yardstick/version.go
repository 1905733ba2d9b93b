package main

import "runtime/debug"

// version is set at link time by the Makefile (-X main.version=...); when
// empty, the module's build information is used.
var version string

// Version reports yardstick's version: the link-time value, else the VCS
// revision recorded by the Go toolchain, else "devel".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			return bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "devel-" + s.Value[:12]
			}
		}
	}
	return "devel"
}
