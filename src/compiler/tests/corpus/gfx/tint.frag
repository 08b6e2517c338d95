#version 300 es
// agx16 GLSL corpus (graphics, statistics only): a varying scaled into one RGBA8 target.
precision mediump float;
in vec4 vcol;
out vec4 color;
void main() {
    color = clamp(vcol * 0.5 + vec4(0.25), 0.0, 1.0);
}
