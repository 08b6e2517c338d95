#version 310 es
// agx16 GLSL corpus (hand-written): nested counted loops
// GLSL ES 3.00 control flow inside a compute kernel; reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) readonly buffer In1 { int a1[]; };
layout(std430, binding = 2) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int p = a0[i];
    int q = a1[i];
    int s = 0;
    for (int x = 0; x < p; x++)
        for (int y = 0; y < q; y++)
            s += x - y;
    r[i] = s;
}
