package pipeline

// Placeholders a definition may write, and who substitutes them.
const (
	// PortPlaceholder, in a command, argument or environment value, is
	// replaced at plan time by the process's declared port.
	PortPlaceholder = "{port}"
	// GCLogPlaceholder is replaced by the executor with the path of the JVM
	// GC log of one target start.
	GCLogPlaceholder = "{gclog}"
	// PayloadPlaceholder, in a request template, is replaced by the cell's
	// payload as a decimal number (a size for the target to generate:
	// "/api/generated/{payload}"; a 2 KB path parameter would measure the
	// router, docs/methodology.md#payload-in-url).
	PayloadPlaceholder = "{payload}"
	// PayloadTextPlaceholder, in a request template, is replaced by the
	// cell's payload in bytes of filler text (a request body of that size).
	PayloadTextPlaceholder = "{payload_text}"
	// VaryPlaceholder, in a request template, is replaced by a value drawn
	// from the seeded source, different from request to request, so that a
	// target answering from a cache or with a constant body can be
	// detected.
	VaryPlaceholder = "{vary}"
)
