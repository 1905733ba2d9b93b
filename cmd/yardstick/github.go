package main

import (
	"fmt"
	"io"

	"yardstick/pipeline/safetext"
	"yardstick/stages/validate"
)

// GitHub Actions workflow commands (validate --format github): each
// finding becomes an ::error or ::warning line that GitHub Actions turns into
// an annotation on file:line:col of the pull request's diff. They are
// written to the raw stdout (cliEnv.rawStdout), the one place a line of
// yardstick's may start with "::", and everything in them that a
// definition wrote is escaped by GitHub's rules after safetext.Line:
// safetext.GitHubProperty for the file, safetext.GitHubData for the
// message.

// writeGitHubFindings prints one workflow command per finding.
func writeGitHubFindings(w io.Writer, fs []validate.Finding) {
	for _, f := range fs {
		cmd := "error"
		if f.Severity == validate.Warning {
			cmd = "warning"
		}
		props := ""
		if f.Pos.IsValid() {
			props = fmt.Sprintf(" file=%s,line=%d", safetext.GitHubProperty(f.Pos.File), f.Pos.Line)
			if f.Pos.Col > 0 {
				props += fmt.Sprintf(",col=%d", f.Pos.Col)
			}
		}
		fmt.Fprintf(w, "::%s%s::%s\n", cmd, props, safetext.GitHubData(f.Msg))
	}
}

// writeGitHubError prints a definition that did not load as one ::error
// line, on the file when it names one.
func writeGitHubError(w io.Writer, arg string, err error) {
	fmt.Fprintf(w, "::error file=%s::%s\n", safetext.GitHubProperty(arg), safetext.GitHubData(err.Error()))
}
