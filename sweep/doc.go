// Package sweep runs a study's cross product of simulate or plan runs, split
// into shards that a batch system runs side by side, and joins the shards'
// results into what one run of the whole would have written, byte for byte.
//
// A sweep file (File, Parse) names the axes: workloads, cluster sizes,
// policies (simulate) or algorithms (plan), seeds and option sets. Points
// lists their cross product in a fixed order; each Point has an Index (its
// place in that order) and an ID (a hash of its coordinates, the same
// whatever else the file lists). A Shard i of N runs the points whose index
// is i modulo N (Shard.Owns); Run writes its results as one JSON line a
// point, appended to the shard's file and synced as the point ends, so
// that a shard killed half-way leaves a file naming what it finished. Merge
// reads a directory of shard files, names any shard that has not finished
// and the points it lacks (MissingError), and otherwise returns the points'
// lines in index order: the same bytes as an unsharded run.
//
// Nothing here reads the environment but FromEnv, which is given the
// lookup, or the clock: the results of a point depend on the point alone.
// Estimate sizes points and shards for the emitters (Slurm, Kubernetes).
package sweep
