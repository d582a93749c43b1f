package result

// A ProfileAnnotation is where a symbol's samples landed, instruction by
// instruction: what `perf annotate` shows, kept with the profile at record
// time so that it can be shown and diffed later, on another machine, after
// the perf.data is gone.
type ProfileAnnotation struct {
	Symbol string `json:"sym"`
	DSO    string `json:"dso,omitempty"`
	Kernel bool   `json:"kernel,omitempty"`
	// Samples is the symbol's samples, counted address by address (perf
	// script); the Lines' samples add up to it.
	Samples int64 `json:"samples"`
	// Source says where the lines came from: "perf annotate" (instructions
	// with their text and the source lines perf interleaves), or "perf
	// script" (offsets and samples only, when nothing could disassemble
	// the symbol, NoText saying why).
	Source string `json:"source"`
	NoText string `json:"no_text,omitempty"`
	// Lines are the symbol's instructions and, between them, its source
	// lines, in perf annotate's order.
	Lines []AnnotatedLine `json:"lines"`
	// Cut says how many lines were left out to bound the size kept.
	Cut int `json:"cut,omitempty"`
}

// An AnnotatedLine is one instruction of a symbol or one source line
// between its instructions.
type AnnotatedLine struct {
	// Source marks a source line (or perf's function-name and section
	// lines); it has Text and nothing else.
	Source bool `json:"src,omitempty"`
	// Offset is the instruction's offset from the symbol's start; -1 when
	// the text did not say it (a pasted TUI annotate shows only jump
	// targets' offsets).
	Offset int64 `json:"off"`
	// Text is the instruction as perf printed it, runs of blanks made
	// one: "mov 0x60(%r14),%r12", "call debug_smp_processor_id".
	Text string `json:"text,omitempty"`
	// Jump is the arrow perf draws before a call or jump: "→", "↑", "↓".
	Jump string `json:"jump,omitempty"`
	// Percent is the instruction's share of the symbol's samples, as perf
	// annotate printed it (local period) or computed from Samples.
	Percent float64 `json:"pct,omitempty"`
	Samples int64   `json:"samples,omitempty"`
}
