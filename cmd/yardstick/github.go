package main

import (
	"fmt"
	"io"
	"strings"

	"yardstick/stages/validate"
)

// GitHub Actions workflow commands (validate --format github): each
// finding becomes an ::error or ::warning line that GitHub Actions turns into
// an annotation on file:line:col of the pull request's diff.

// ghData escapes a workflow command's message.
var ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

// ghProp escapes a workflow command's property value.
var ghProp = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

// writeGitHubFindings prints one workflow command per finding.
func writeGitHubFindings(w io.Writer, fs []validate.Finding) {
	for _, f := range fs {
		cmd := "error"
		if f.Severity == validate.Warning {
			cmd = "warning"
		}
		props := ""
		if f.Pos.IsValid() {
			props = fmt.Sprintf(" file=%s,line=%d", ghProp.Replace(f.Pos.File), f.Pos.Line)
			if f.Pos.Col > 0 {
				props += fmt.Sprintf(",col=%d", f.Pos.Col)
			}
		}
		fmt.Fprintf(w, "::%s%s::%s\n", cmd, props, ghData.Replace(f.Msg))
	}
}

// writeGitHubError prints a definition that did not load as one ::error
// line, on the file when it names one.
func writeGitHubError(w io.Writer, arg string, err error) {
	fmt.Fprintf(w, "::error file=%s::%s\n", ghProp.Replace(arg), ghData.Replace(err.Error()))
}
