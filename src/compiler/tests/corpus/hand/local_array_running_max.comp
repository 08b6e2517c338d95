#version 310 es
// agx16 GLSL corpus (hand-written): a local array indexed by the loop counter, turned into its
// running maximum by a loop whose body is an if inside a do-while(false) (a loop the front end
// must unroll exactly once); reference in tests/corpus/cases.rs.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In0 { int a0[]; };
layout(std430, binding = 1) writeonly buffer Out { int r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int v[4];
    for (int k = 0; k < 4; k++)
        v[k] = (a0[i] >> (24 - 8 * k)) & 255;
    for (int k = 1; k < 4; k++) {
        bool below = v[k] < v[k - 1];
        do {
            if (below)
                v[k] = v[k - 1];
        } while (false);
    }
    r[i] = v[3] + v[2] * 256 + v[1] * 65536 + v[0] * 16777216;
}
