#!/bin/sh
# Refreshes the dashboard's vendored libraries from the npm registry.
# Only this script needs npm; `go build` uses the files checked in here.
# Change a version below, run the script, look at the diff, commit.
set -eu
PREACT=10.29.8
HTM=3.1.1
UPLOT=1.6.32

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for pkg in "preact@$PREACT" "htm@$HTM" "uplot@$UPLOT"; do
	name=${pkg%@*}
	tgz=$(npm pack --silent "$pkg")
	mkdir "$name"
	tar xzf "$tgz" -C "$name"
done

cp preact/package/dist/preact.module.js "$here/preact.module.js"
# hooks import the bare name "preact"; the page has no import map (CSP
# would need a hash for it), so point the import at the file beside it.
sed 's#from"preact"#from"./preact.module.js"#g; s#from "preact"#from "./preact.module.js"#g' \
	preact/package/hooks/dist/hooks.module.js >"$here/hooks.module.js"
cp htm/package/dist/htm.module.js "$here/htm.module.js"
# uPlot's minified build is a script defining the global uPlot; as a
# module its top-level var stays local, and the export makes it importable.
{ cat uplot/package/dist/uPlot.iife.min.js; printf '\nexport default uPlot;\n'; } >"$here/uplot.module.js"
cp uplot/package/dist/uPlot.min.css "$here/uplot.min.css"

# Source maps are not vendored; drop the comments that point at them.
for f in preact.module.js hooks.module.js htm.module.js uplot.module.js uplot.min.css; do
	sed -i '/sourceMappingURL=/d' "$here/$f"
done

cp preact/package/LICENSE "$here/LICENSE.preact"
cp htm/package/LICENSE "$here/LICENSE.htm"
cp uplot/package/LICENSE "$here/LICENSE.uplot"
cat >"$here/VERSIONS" <<VERSIONS
preact $PREACT (MIT) https://registry.npmjs.org/preact/-/preact-$PREACT.tgz
htm $HTM (Apache-2.0) https://registry.npmjs.org/htm/-/htm-$HTM.tgz
uplot $UPLOT (MIT) https://registry.npmjs.org/uplot/-/uplot-$UPLOT.tgz
VERSIONS
echo "vendored into $here:"
cat "$here/VERSIONS"
