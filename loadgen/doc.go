// Package loadgen is yardstick's HTTP/1.1 load generator, and its holder
// of long WebSocket connections: the instrument every throughput, latency
// and connection figure passes through.
//
// The flow of one run ([Run]):
//
//  1. A [Spec] (plain data, sent as JSON by a driver) is validated: the
//     target must be on loopback, and every run is bounded in time
//     ([MaxDuration]) and optionally in count (Spec.MaxRequests).
//  2. The request is rendered up front: method, path, headers and body with
//     {payload} (the size as a number) and {payload_text} (that many bytes
//     of text) replaced, and, when the template holds {vary}, one variant
//     per value drawn from a seeded source (Spec.Variants, 256 by default).
//     The hot path only picks a variant.
//  3. The connections are shared out among workers, one per CPU the
//     process may use. A worker is an event loop on its own OS thread:
//     non-blocking sockets, epoll_pwait2, one write and the reads a response
//     needs per request, an incremental parser that discards bodies, and a
//     tally it owns outright (HdrHistogram 1 us..60 s, 3 significant digits,
//     error kinds, status classes, bytes). Nothing is locked or allocated
//     per request.
//  4. Closed loop (Spec.Rate 0): each connection sends its next request
//     when the previous response has been read; latency runs from the send.
//     Open loop: a [Schedule] gives every connection its own slots so that
//     together they arrive at the constant rate; a connection still busy at
//     its slot sends as soon as it is free, and latency runs from the slot
//     (wrk2's correction for coordinated omission). Sends later than
//     [LateThreshold] and slots never sent are counted.
//  5. Once a second each worker hands its tally to the aggregator over a
//     channel; the aggregator emits an [Interval] when every worker has
//     reported that second, and folds it into the whole-window tally.
//  6. At the end, or on cancellation (SIGINT/SIGTERM in the CLI, a stop
//     message from a driver), the [Result] holds the whole window: counts,
//     rates, percentiles, the histogram in the standard compressed encoding,
//     and the process's own CPU time, so that a saturated client shows.
//
// Against a broken or hostile target the load generator stays bounded: a
// connection buffers at most a partial header block ([MaxResponseHead]),
// bodies are counted and never kept ([MaxResponseBody]), every request has
// its timeout from the send, and whatever breaks HTTP/1.1 closes the
// connection with a counted error. The rendered requests are bounded too
// ([MaxRequestHead], [MaxRequestBody], [MaxRenderedRequests]). PROTOCOL.md
// lists the limits.
//
// A spec with a [Hold] is a connection-holding run instead: the same
// event loops (one per CPU) open WebSocket connections at a rate, step by
// step up to each of Hold.Steps, from several loopback source addresses
// when one address's ephemeral ports would not do, hold each step, and
// read the heartbeats the server pushes (PROTOCOL.md, "Connection
// holding"). Per connection they keep one small struct and nothing else:
// no goroutine, timer or buffer of its own. Per interval and per step the
// run reports connections requested, established, refused and dropped,
// heartbeats received and missed, the heartbeats' delay from their
// expected time in an HdrHistogram (so a stalled server shows its stall)
// and the load generator's own memory and CPU. The WebSocket client is
// the project's own, package wsframe; PROTOCOL.md says why.
//
// [Serve] and [Drive] are the two ends of the driver protocol described in
// PROTOCOL.md, with which the executor runs `yardstick loadgen --stdio` as a
// pinned child process (see [Pin]) that could as well run on another host.
//
// The package is Linux-only (epoll, sched_setaffinity).
package loadgen
