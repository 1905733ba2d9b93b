// Package citest tests the scripts under .ci and the Makefile that calls
// them: which Debian packages each make target would install (.ci/deps),
// from the dry run the script itself offers. It has no code of its own.
package citest
