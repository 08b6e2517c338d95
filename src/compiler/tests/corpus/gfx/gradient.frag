#version 300 es
// agx16 GLSL corpus (graphics, statistics only): colour from a varying with a branch.
precision highp float;
in float diffuse;
out vec4 color;
void main() {
    float d = diffuse;
    if (d > 0.5)
        color = vec4(d, d * 0.5, 0.0, 1.0);
    else
        color = vec4(0.0, 0.0, 1.0 - d, 1.0);
}
