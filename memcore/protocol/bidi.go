package protocol

import "unicode"

// IsBidiControl reports whether r is one of Unicode's bidirectional
// formatting characters (the Bidi_Control property): ALM U+061C, LRM
// U+200E, RLM U+200F, the embeddings and overrides LRE, RLE, PDF, LRO, RLO
// (U+202A–U+202E) and the isolates LRI, RLI, FSI, PDI (U+2066–U+2069).
// Each reorders how the text around it is shown, so that a name or a
// reference can read as something it is not ("x\u202Edm.sh" shows as
// "xhs.md"). A key never holds one (isKeyRune); any other text a teammate
// sends that others see (stale-reference reports) is refused on the same
// predicate.
func IsBidiControl(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }
