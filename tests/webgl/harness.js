// Shared by the pages of our WebGL set. A page calls
// `webglTest(name, {webgl2, width, height, tolerance}, draw)`;
// draw(gl) renders into the canvas (and may return extra numbers as `data`). The harness then reads
// the pixels back and reports them (see the end of webglTest).
"use strict";

function webglTest(name, opts, draw) {
  const width = opts.width || 64, height = opts.height || 64;
  const result = { page: name, ok: false, width, height };
  // A page may widen the per-channel pixel tolerance of the comparison (ci/webgl.py), saying why.
  if (opts.tolerance) result.tolerance = opts.tolerance;
  try {
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    document.body.appendChild(canvas);
    const attrs = { antialias: !!opts.antialias, preserveDrawingBuffer: true, premultipliedAlpha: false };
    let why = "";
    canvas.addEventListener("webglcontextcreationerror", (e) => { why = e.statusMessage || ""; });
    const gl = canvas.getContext(opts.webgl2 ? "webgl2" : "webgl", attrs);
    if (!gl) throw new Error((opts.webgl2 ? "webgl2" : "webgl") + " context unavailable" + (why ? ": " + why : ""));
    result.version = gl.getParameter(gl.VERSION);
    const info = gl.getExtension("WEBGL_debug_renderer_info");
    result.renderer = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
    result.vendor = info ? gl.getParameter(info.UNMASKED_VENDOR_WEBGL) : gl.getParameter(gl.VENDOR);
    webglTest.timing = undefined;
    const data = draw(gl);
    if (data !== undefined) result.data = Array.from(data);
    // Times a page measured (not compared between runs).
    if (webglTest.timing) result.timing = webglTest.timing;
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    const px = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, px);
    const err = gl.getError();
    if (err !== gl.NO_ERROR) throw new Error("GL error 0x" + err.toString(16));
    let bin = "";
    for (let i = 0; i < px.length; i++) bin += String.fromCharCode(px[i]);
    result.pixels = btoa(bin);
    // Centre pixel in words, for a reader of the DOM.
    const c = ((height >> 1) * width + (width >> 1)) * 4;
    result.centre = [px[c], px[c + 1], px[c + 2], px[c + 3]];
    result.ok = true;
  } catch (e) {
    result.error = String(e && e.message || e);
  }
  // A visible summary (screenshots, the DOM) and the whole result, pixels included, as one base64
  // line in the DOM (<pre id="result">, for Chromium's --dump-dom) and on the console (Firefox prints
  // console messages with devtools.console.stdout.content); ci/webgl.py reads either.
  const summary = { page: result.page, ok: result.ok, renderer: result.renderer, version: result.version,
                    error: result.error, centre: result.centre, timing: result.timing };
  const p = document.createElement("p");
  p.id = "summary";
  p.style.cssText = "white-space: pre-wrap; word-break: break-all; font: 12px monospace";
  p.textContent = JSON.stringify(summary, null, 1);
  document.body.appendChild(p);
  const blob = btoa(unescape(encodeURIComponent(JSON.stringify(result))));
  const pre = document.createElement("pre");
  pre.id = "result";
  pre.style.display = "none";
  pre.textContent = "webgl-result " + blob;
  document.body.appendChild(pre);
  console.log("webgl-result " + blob);
}

// Helpers for the pages.
function compile(gl, type, src) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error("compile: " + gl.getShaderInfoLog(s));
  return s;
}

function program(gl, vs, fs, beforeLink) {
  const p = gl.createProgram();
  gl.attachShader(p, compile(gl, gl.VERTEX_SHADER, vs));
  gl.attachShader(p, compile(gl, gl.FRAGMENT_SHADER, fs));
  if (beforeLink) beforeLink(p);
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error("link: " + gl.getProgramInfoLog(p));
  gl.useProgram(p);
  return p;
}

function buffer(gl, target, data, usage) {
  const b = gl.createBuffer();
  gl.bindBuffer(target, b);
  gl.bufferData(target, data, usage || gl.STATIC_DRAW);
  return b;
}

function attrib(gl, p, name, size, data) {
  buffer(gl, gl.ARRAY_BUFFER, data);
  const loc = gl.getAttribLocation(p, name);
  gl.enableVertexAttribArray(loc);
  gl.vertexAttribPointer(loc, size, gl.FLOAT, false, 0, 0);
  return loc;
}

// A w×h RGBA8 checkerboard with a colour ramp, deterministic.
function checker(w, h) {
  const d = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = (y * w + x) * 4, on = ((x >> 2) ^ (y >> 2)) & 1;
    d[i] = on ? 255 : (x * 255 / (w - 1)) | 0;
    d[i + 1] = on ? 40 : (y * 255 / (h - 1)) | 0;
    d[i + 2] = on ? 90 : 200;
    d[i + 3] = 255;
  }
  return d;
}

const QUAD = new Float32Array([-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1]);
