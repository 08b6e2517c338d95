#version 300 es
// agx16 GLSL corpus (graphics): dFdx, dFdy and fwidth of non-linear functions of the
// fragment position and a varying, one derivative instruction per scalar.
precision highp float;
in vec2 uv;
out vec4 color;
void main() {
    vec2 p = gl_FragCoord.xy;
    float f = p.x * p.x * 0.01 + sin(p.y * 0.3);
    vec2 g = vec2(dFdx(f), dFdy(f));
    color = vec4(g * 0.25 + 0.5, fwidth(uv.x * uv.y), 1.0);
}
