#version 300 es
// agx16 GLSL corpus (graphics, statistics only): per-vertex diffuse term from a normal.
in vec4 pos;
in vec4 normal;
out float diffuse;
void main() {
    vec3 n = normal.xyz;
    vec3 l = vec3(0.0, 0.6, 0.8);
    diffuse = max(n.x * l.x + n.y * l.y + n.z * l.z, 0.0);
    gl_Position = vec4(pos.xy, pos.z * 0.5, 1.0);
}
