#version 300 es
// agx16 statistics corpus: a switch with only a default (GLSL wraps it in a loop that runs once)
uniform int u_i;
void main() {
 switch (u_i) { default: gl_Position = vec4(0.0); }
}
