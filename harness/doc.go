// Package harness holds the generic systems under test and the in-memory
// query sample library that every benchmark reuses.
//
// A benchmark supplies a Model (run a batch of loaded samples, fill one
// Response per sample) and a sample loader; the harness supplies the
// scenario plumbing:
//
//   - Inline runs each query synchronously in the issuing goroutine, as the
//     reference does for SingleStream.
//   - Pool queues samples and runs them on a fixed number of workers, each
//     taking up to Batch queued samples per Predict call. The same pool
//     serves Offline (one huge query cut into batches, the last one the
//     remainder), MultiStream (each query cut into batches) and Server
//     (samples arriving one by one, batched dynamically with whatever else
//     is queued when a worker becomes free).
//   - QSL keeps loaded samples in memory: LoadSamples (untimed) calls the
//     benchmark's loader in parallel, Sample is a lock-free slice read on
//     the hot path. OpenNpyCache wraps a loader with an on-disk .npy cache
//     after checking that the cache was made from the same data set and
//     preprocessing (a fingerprint file and a recomputed sample or two).
//
// A failed Predict (error, or even a panic) never hangs a run: each of its
// samples is completed with Response.Err set.
package harness
