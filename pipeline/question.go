package pipeline

// A Question is the question a study asks, as the experiment declares it
// (question: {text, answer}); the report answers it on its first screen,
// in the way Answer names.
type Question struct {
	Text string `json:"text"`
	// Answer is one of the Answer* kinds.
	Answer string `json:"answer"`
}

// How the report answers a study's question.
const (
	// AnswerDimensions: per batch with a baseline, the winner of each of
	// the seven dimensions (throughput, p99, p99.9, tail >10 ms, RSS under
	// load, cold start, CPU per request), ties called ties.
	AnswerDimensions = "dimensions"
	// AnswerCrossover: per batch and payload, where along the concurrency
	// axis the throughput leader changes: where the curves cross.
	AnswerCrossover = "crossover"
	// AnswerWinners: per batch and workload point, the winner of
	// throughput, p99, RSS and CPU per request, ties called ties, with RSS
	// at the start and the end of the load.
	AnswerWinners = "winners"
)
