#version 300 es
// agx16 GLSL corpus (graphics, statistics only): boolean uniforms used directly as conditions and
// combined with a comparison; each becomes a copy of a uniform word (regression: the uniform-file
// move was selected for 32-bit ints and floats but not for bools).
precision mediump float;
uniform bool invert;
uniform bool dim;
uniform vec4 base;
out vec4 colour;
void main() {
    vec4 c = invert ? vec4(1.0) - base : base;
    bool darker = dim && c.r > 0.5;
    colour = darker ? c * 0.5 : c;
}
