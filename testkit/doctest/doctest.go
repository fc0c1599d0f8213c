// Package doctest holds the tests that keep the repository's documentation
// true: every relative link in a Markdown file leads somewhere, and the CLI
// reference under docs/ is the real commands' --help output.
package doctest
