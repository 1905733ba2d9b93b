// Package decide holds yardstick's decisions: whether a candidate is
// better, worse, equivalent or undecided against its batch's baseline on
// one metric (docs/methodology.md#decisions).
//
// It holds the whole decision and nothing else:
//
//   - the compared metrics, in one registry ([Metrics]): each metric's
//     name in the comparisons table, its unit and direction, the cells
//     column its figure comes from, and how each start's figure and its
//     uncertainty are taken from a cell;
//   - the statistics: a ratio with an interval from a hierarchical
//     resampling over process starts and the noise within each start
//     (its variance in closed form)
//     ([Between]), the four outcomes against a declared margin, the
//     reasons, and the guidance on how many more starts per side would
//     decide ([MoreStartsWords]); [Paired] decides from paired adjacent
//     slices instead, for the design trial;
//   - the confidence of each look of adaptive repeats ([Sequential]);
//   - the decisions of a batch and of a run from their cells ([Cells],
//     [Batch], [Looks], [Run]), as rows of the comparisons table.
//
// Package datasets is the Parquet door: it holds the rows and tables and
// no decision. tabulate, the runner's adaptive rounds, compare and the
// report's analysis all decide through this package.
package decide
