// Package citest tests the scripts under .ci and the Makefile that calls
// them: which Debian packages each make target would install (.ci/deps),
// from the dry run the script itself offers, and how the tests split
// between make test (Go alone) and make test-integration (build tag
// integration, tests named TestIntegration*), both run by .ci/run. It has
// no code of its own.
package citest
