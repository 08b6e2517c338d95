// The blend scene of webgl1-blend.html and webgl1-blend-antialias.html: overlapping rectangles under
// six blend equation/function pairs, then separate RGB/alpha blending. Every rectangle edge lies on a
// pixel boundary of a 64x64 canvas (multiples of 2/64 in NDC), so multisampled and single-sampled
// rendering give the same pixels and softpipe (no multisampling) is the reference for both.
function drawBlendScene(gl) {
  gl.clearColor(0.2, 0.2, 0.2, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
  const p = program(gl, `
attribute vec2 pos; uniform vec4 rect; void main() { gl_Position = vec4(rect.xy + (pos * 0.5 + 0.5) * rect.zw, 0, 1); }`, `
precision mediump float; uniform vec4 col; void main() { gl_FragColor = col; }`);
  attrib(gl, p, "pos", 2, QUAD);
  const rect = gl.getUniformLocation(p, "rect"), col = gl.getUniformLocation(p, "col");
  gl.enable(gl.BLEND);
  const modes = [
    [gl.FUNC_ADD, gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA],
    [gl.FUNC_ADD, gl.ONE, gl.ONE],
    [gl.FUNC_SUBTRACT, gl.ONE, gl.ONE],
    [gl.FUNC_REVERSE_SUBTRACT, gl.SRC_COLOR, gl.DST_COLOR],
    [gl.FUNC_ADD, gl.CONSTANT_COLOR, gl.ONE_MINUS_CONSTANT_COLOR],
    [gl.FUNC_ADD, gl.DST_ALPHA, gl.ONE_MINUS_SRC_COLOR],
  ];
  gl.blendColor(0.3, 0.6, 0.9, 0.25);
  modes.forEach(([eq, s, d], i) => {
    const x = -1 + (i % 3) * 0.625, y = i < 3 ? 0 : -1;
    gl.blendEquation(eq); gl.blendFunc(s, d);
    gl.uniform4f(rect, x, y, 0.625, 1);
    gl.uniform4f(col, 0.8, 0.3, 0.1, 0.6); gl.drawArrays(gl.TRIANGLES, 0, 6);
    gl.uniform4f(rect, x + 0.1875, y + 0.25, 0.375, 0.5);
    gl.uniform4f(col, 0.1, 0.5, 0.9, 0.4); gl.drawArrays(gl.TRIANGLES, 0, 6);
  });
  // Separate RGB/alpha blending on top of everything, then write alpha to 1 for a stable read-back.
  gl.blendEquationSeparate(gl.FUNC_ADD, gl.FUNC_ADD);
  gl.blendFuncSeparate(gl.ONE, gl.ONE_MINUS_SRC_ALPHA, gl.ZERO, gl.ONE);
  gl.uniform4f(rect, -0.1875, -0.1875, 0.375, 0.375);
  gl.uniform4f(col, 0.2, 0.1, 0.0, 0.5); gl.drawArrays(gl.TRIANGLES, 0, 6);
}
