#version 300 es
// agx16 GLSL corpus (graphics, statistics only: compiled by agx16-compile --stats and
// tests/glsl_cli.rs, not executed against a reference): attributes to clip space and a varying.
in vec4 pos;
in vec4 col;
out vec4 vcol;
void main() {
    gl_Position = pos * vec4(2.0, 2.0, 1.0, 1.0) - vec4(1.0, 1.0, 0.0, 0.0);
    vcol = col;
}
