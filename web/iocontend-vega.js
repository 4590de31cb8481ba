// iocontend-vega.js: Vega assembled from Debian's per-package files (libjs-vega ships
// no single bundle): the transforms registered as Vega's own index does, and the
// few entry points the charts use. An AMD module, loaded through require.js.
define("iocontend-vega", ["vega-util", "vega-dataflow", "vega-transforms",
  "vega-view-transforms", "vega-encode", "vega-parser", "vega-view", "vega-scenegraph",
  "vega-format"],
function (util, dataflow, transforms, viewTransforms, encode, parser, view, scenegraph, format) {
  "use strict";
  // Vega's index.js extends the dataflow's registry with every transform package;
  // these three hold all the transforms a chart of ours names.
  util.extend(dataflow.transforms, transforms, viewTransforms, encode);
  return {
    parse: parser.parse,
    View: view.View,
    formatLocale: format.formatLocale,
    sceneToJSON: scenegraph.sceneToJSON
  };
});
