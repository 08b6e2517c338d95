#version 310 es
// agx16 GLSL corpus (hand-written): switch statements (GLSL wraps each in a loop that runs once)
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a0[i];
    int s = 1;
    switch (x & 3) {
    case 0:
        s = 10;
        break;
    case 1:
        s = 20; // falls through
    case 2:
        s += 5;
        break;
    default:
        s = -x;
    }
    switch (0) {
    default:
        s = s * 3;
    }
    r[i] = s;
}
