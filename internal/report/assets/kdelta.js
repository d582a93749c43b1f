// kdelta's charts: reads the page's data (the JSON of report.chart) and
// draws each chart with uPlot in the element of its id. Every drawn chart
// is kept in window.kdeltaCharts with the count of its marks, so that a
// test reads back what the page shows.
(function () {
	"use strict";
	var palette = ["#1f5fa8", "#d9730d", "#2e8b57", "#8b3fa8", "#b8860b", "#4d6d7a", "#c2185b", "#5d4037"];
	var outlierColour = "#d00000";
	var charts = JSON.parse(document.getElementById("kdelta-data").textContent);
	// Go writes an empty series' points as null.
	charts.forEach(function (c) {
		c.series.forEach(function (s) { s.x = s.x || []; s.y = s.y || []; s.run = s.run || []; });
	});
	window.kdeltaCharts = [];

	function colour(set) { return palette[set % palette.length]; }

	// align turns the series' own x and y into uPlot's one x column: every
	// point gets a row of its own, so none is merged away.
	// spec.rowRuns gets each series' run numbers in the same rows.
	function align(spec) {
		var rows = [];
		spec.series.forEach(function (s, si) {
			for (var k = 0; k < s.x.length; k++) rows.push([s.x[k], si, s.y[k], s.run[k]]);
		});
		rows.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
		var data = [rows.map(function (r) { return r[0]; })];
		spec.rowRuns = [null];
		spec.series.forEach(function (s, si) {
			data.push(rows.map(function (r) { return r[1] === si ? r[2] : null; }));
			spec.rowRuns.push(rows.map(function (r) { return r[1] === si ? r[3] : null; }));
		});
		return data;
	}

	// linesOnly: a CDF or a histogram is one sorted x per series, drawn as
	// steps; align would break each line into points.
	function alignLines(spec) {
		var xs = [];
		spec.series.forEach(function (s) { xs = xs.concat(s.x); });
		xs = Array.from(new Set(xs)).sort(function (a, b) { return a - b; });
		var data = [xs];
		spec.series.forEach(function (s) {
			var at = new Map();
			for (var k = 0; k < s.x.length; k++) at.set(s.x[k], s.y[k]);
			data.push(xs.map(function (x) { return at.has(x) ? at.get(x) : null; }));
		});
		return data;
	}

	function seriesOpts(spec, s) {
		if (s.role === "line") {
			var o = { label: s.name, stroke: spec.kind === "history" ? "#555" : colour(s.set), width: 1.5, spanGaps: true, points: { show: spec.kind === "history" } };
			if (spec.kind === "cdf" || spec.kind === "hist") o.paths = uPlot.paths.stepped({ align: 1 });
			return o;
		}
		var out = s.role === "outliers";
		var c = out ? outlierColour : colour(s.set);
		var si = spec.series.indexOf(s) + 1;
		return {
			label: s.name, stroke: c, paths: function () { return null; },
			value: function (u, v, _, row) {
				if (v === null || v === undefined) return "--";
				var run = spec.rowRuns && spec.rowRuns[si] ? spec.rowRuns[si][row] : null;
				return (run ? "run " + run + ": " : "") + v.toPrecision(5);
			},
			points: { show: true, size: out ? 10 : 6, width: out ? 2 : 1, stroke: c, fill: out ? "#fff" : c + "99", space: 0 },
		};
	}

	// extent is the y range of the marks drawn over the points, so the
	// scale takes them in.
	function extent(spec) {
		var lo = Infinity, hi = -Infinity;
		(spec.lines || []).forEach(function (m) { lo = Math.min(lo, m.y0, m.y1); hi = Math.max(hi, m.y0, m.y1); });
		return [lo, hi];
	}

	function drawMarks(spec) {
		return function (u) {
			var ctx = u.ctx;
			ctx.save();
			var px = function (v, s) { return u.valToPos(v, s, true); };
			(spec.lines || []).forEach(function (m) {
				ctx.strokeStyle = m.kind === "segment" ? "#000" : colour(m.set);
				ctx.lineWidth = (m.kind === "segment" ? 3 : 2) * devicePixelRatio;
				ctx.beginPath();
				if (m.kind === "interval") {
					var x = px(m.x0, "x"), w = 5 * devicePixelRatio;
					ctx.moveTo(x, px(m.y0, "y")); ctx.lineTo(x, px(m.y1, "y"));
					ctx.moveTo(x - w, px(m.y0, "y")); ctx.lineTo(x + w, px(m.y0, "y"));
					ctx.moveTo(x - w, px(m.y1, "y")); ctx.lineTo(x + w, px(m.y1, "y"));
				} else {
					ctx.moveTo(px(m.x0, "x"), px(m.y0, "y")); ctx.lineTo(px(m.x1, "x"), px(m.y1, "y"));
				}
				ctx.stroke();
			});
			(spec.steps || []).forEach(function (s) {
				var x = px(s.x, "x");
				ctx.strokeStyle = outlierColour; ctx.lineWidth = 1.5 * devicePixelRatio;
				ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
				ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
				ctx.setLineDash([]);
				ctx.fillStyle = outlierColour; ctx.font = (12 * devicePixelRatio) + "px sans-serif";
				ctx.fillText("step " + s.label, x + 4 * devicePixelRatio, u.bbox.top + 14 * devicePixelRatio);
			});
			ctx.restore();
		};
	}

	function opts(spec, el) {
		var named = spec.xnames && spec.xnames.length > 0;
		var lines = spec.kind === "cdf" || spec.kind === "hist";
		var ex = extent(spec);
		var o = {
			title: spec.title,
			width: Math.max(320, Math.min(el.clientWidth || 900, 1000)),
			height: 300,
			legend: { show: true },
			cursor: { drag: { x: false, y: false }, points: { show: false } },
			scales: {
				x: { time: !!spec.xtime, distr: spec.logx ? 3 : 1 },
				y: {
					distr: spec.logy ? 3 : 1,
					range: function (u, lo, hi) {
						lo = Math.min(lo, ex[0]); hi = Math.max(hi, ex[1]);
						if (spec.logy) return uPlot.rangeLog(lo, hi, 10, true);
						return uPlot.rangeNum(lo, hi, 0.1, true);
					},
				},
			},
			axes: [{ label: spec.xunit || "" }, { label: spec.yunit || "", size: 70 }],
			series: [{}].concat(spec.series.map(function (s) { return seriesOpts(spec, s); })),
			hooks: { draw: [drawMarks(spec)] },
		};
		if (spec.kind === "cdf") o.scales.y.range = function () { return [0, 1]; };
		if (spec.kind === "hist") o.scales.y.range = function (u, lo, hi) { return [0, hi * 1.05 || 1]; };
		if (named) {
			var n = spec.xnames.length;
			o.scales.x.range = function () { return [-0.6, n - 0.4]; };
			o.axes[0].splits = function () { return spec.xnames.map(function (_, i) { return i; }); };
			o.axes[0].values = function (u, splits) { return splits.map(function (i) { return spec.xnames[i] || ""; }); };
			o.axes[0].rotate = n > 8 ? -45 : 0;
			if (n > 8) o.axes[0].size = 80;
		}
		if (lines) o.cursor.points = { show: true };
		return o;
	}

	function marks(spec, data) {
		var n = 0;
		spec.series.forEach(function (s, si) {
			if (s.role === "line") return;
			data[si + 1].forEach(function (y) { if (y !== null && y !== undefined) n++; });
		});
		return n;
	}

	charts.forEach(function (spec) {
		var el = document.getElementById(spec.id);
		if (!el) return;
		var lines = spec.kind === "cdf" || spec.kind === "hist";
		var data = lines ? alignLines(spec) : align(spec);
		var u = new uPlot(opts(spec, el), data, el);
		var n = marks(spec, data);
		el.dataset.marks = String(n);
		el.dataset.runs = String(spec.runs);
		if (spec.shown < spec.runs) {
			var p = document.createElement("p");
			p.className = "downsampled";
			p.textContent = spec.shown + " of " + spec.runs + " runs plotted; the tables use every run";
			el.appendChild(p);
		}
		(spec.steps || []).forEach(function (s) {
			if (!s.link) return;
			u.over.style.cursor = "pointer";
		});
		u.over.addEventListener("click", function (e) {
			var x = u.posToVal(e.offsetX, "x");
			(spec.steps || []).forEach(function (s) {
				if (s.link && Math.abs(x - s.x) < 0.5) window.location.href = s.link;
			});
		});
		window.kdeltaCharts.push({ id: spec.id, kind: spec.kind, spec: spec, plot: u, marks: n, runs: spec.rowRuns || [] });
	});
	document.body.dataset.charts = String(window.kdeltaCharts.length);
})();
