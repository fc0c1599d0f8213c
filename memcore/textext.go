package memcore

import (
	"path/filepath"
	"strings"
)

// textExtensions is the whitelist of file extensions an @include may load:
// documentation, data formats and common source code. Images, archives,
// office documents and other binaries are absent on purpose.
var textExtensions = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`
		.md .markdown .mdx .txt .text .rst .adoc .asciidoc .org .tex .textile .pod
		.json .jsonc .json5 .yaml .yml .toml .ini .cfg .conf .properties .xml .csv .tsv
		.js .mjs .cjs .jsx .ts .mts .cts .tsx .vue .svelte .astro .html .htm .css .scss .sass .less
		.py .pyi .pyw .rb .erb .rake .go .mod .sum .rs .java .kt .kts .scala .sc .groovy .gradle
		.swift .m .mm .c .h .cc .cpp .cxx .hpp .hh .hxx .cs .fs .fsx .vb .php .pl .pm .lua .r .jl
		.dart .ex .exs .erl .hrl .hs .elm .clj .cljs .edn .ml .mli .nim .zig .sol .cob .f90 .pas
		.sh .bash .zsh .fish .ps1 .psm1 .bat .cmd .awk .sed
		.sql .graphql .gql .proto .thrift .prisma
		.tf .tfvars .hcl .nix .dockerfile .mk .cmake .bazel .bzl .star
		.diff .patch .log .lock .gitignore .editorconfig .svg`) {
		textExtensions[e] = true
	}
}

// IsTextExtension reports whether path's extension (case-insensitive) is on
// the text whitelist that @include honours. A path without an extension
// reports false; the loader accepts such files separately and rejects them
// only when their content is binary.
func IsTextExtension(path string) bool {
	return textExtensions[strings.ToLower(nodeExt(path))]
}

// nodeExt returns the extension of path's last element as Node's
// path.extname does, which is what Claude Code checks: the leading dots of
// the name are not an extension, so ".env" and "..x" have none, while
// ".env.local" has ".local" (Go's filepath.Ext gives ".env" for ".env").
func nodeExt(path string) string {
	name := strings.TrimLeft(filepath.Base(path), ".")
	return filepath.Ext(name)
}
