/* agx16: GLSL source to NIR through Mesa's own GLSL front end and NIR linker, without a GL
 * context or driver. Mesa's standalone scaffolding supplies the context defaults and the stubs
 * the linker needs; this file only sets the limits agx16 exposes, runs compile + link for one
 * stage and hands back a NIR copy with buffer access lowered to load_ssbo/store_ssbo. */

#include <stdlib.h>
#include <string.h>

#include "compiler/nir/nir.h"
#include "compiler/nir/nir_builder.h"
#include "main/mtypes.h"
#include "compiler/glsl/glsl_parser_extras.h"
#include "compiler/glsl/ir.h"
#include "compiler/glsl/builtin_functions.h"
#include "compiler/glsl/gl_nir.h"
#include "compiler/glsl/gl_nir_linker.h"
#include "compiler/glsl/linker_util.h"
#include "compiler/glsl/standalone_scaffolding.h"
#include "util/ralloc.h"

static GLenum
agx16_shader_type(unsigned stage)
{
   switch (stage) {
   case MESA_SHADER_VERTEX: return GL_VERTEX_SHADER;
   case MESA_SHADER_TESS_CTRL: return GL_TESS_CONTROL_SHADER;
   case MESA_SHADER_TESS_EVAL: return GL_TESS_EVALUATION_SHADER;
   case MESA_SHADER_GEOMETRY: return GL_GEOMETRY_SHADER;
   case MESA_SHADER_FRAGMENT: return GL_FRAGMENT_SHADER;
   default: return GL_COMPUTE_SHADER;
   }
}

static char *
agx16_strdup(const char *s)
{
   return strdup(s ? s : "");
}

/* GLSL ES 3.10 limits (ES 3.1 minimums or above) so compute kernels with SSBOs compile. */
static void
agx16_set_limits(struct gl_context *ctx, const nir_shader_compiler_options *opts)
{
   ctx->Version = 31;
   ctx->Const.GLSLVersion = 310;
   ctx->Extensions.ARB_ES3_compatibility = true;
   ctx->Extensions.ARB_ES3_1_compatibility = true;
   ctx->Extensions.ARB_shader_storage_buffer_object = true;
   ctx->Const.MaxUniformBufferBindings = 24;
   ctx->Const.MaxUniformBlockSize = 16384;
   ctx->Const.MaxCombinedUniformBlocks = 24;
   ctx->Const.MaxShaderStorageBufferBindings = 8;
   ctx->Const.MaxCombinedShaderStorageBlocks = 8;
   ctx->Const.MaxShaderStorageBlockSize = 1 << 27;
   ctx->Const.MaxComputeSharedMemorySize = 32768;
   ctx->Const.MaxDrawBuffers = 4;
   ctx->Const.MaxVertexStreams = 1;
   ctx->Const.MaxVarying = 16;
   ctx->Const.MaxCombinedTextureImageUnits = 32;
   ctx->Const.MaxUserAssignableUniformLocations = 1024;
   for (unsigned s = 0; s < MESA_SHADER_STAGES; s++) {
      struct gl_program_constants *p = &ctx->Const.Program[s];
      p->MaxShaderStorageBlocks = 8;
      p->MaxUniformBlocks = 12;
      p->MaxTextureImageUnits = 16;
      p->MaxUniformComponents = 1024;
      p->MaxCombinedUniformComponents = 1024 + 12 * 16384 / 4;
      if (s == MESA_SHADER_VERTEX) {
         p->MaxAttribs = 16;
         p->MaxOutputComponents = 64;
      }
      if (s == MESA_SHADER_FRAGMENT)
         p->MaxInputComponents = 60;
      ctx->Const.ShaderCompilerOptions[s].NirOptions = opts;
   }
}

/* Mesa numbers buffer blocks in link order; agx16 binds SSBO binding n at buffer slot n, so
 * every SSBO access's block index becomes the block's binding. */
static bool
agx16_ssbo_index_to_binding(nir_shader *nir, const struct gl_program *glprog, char **log)
{
   nir_foreach_function_impl(impl, nir) {
      nir_builder b = nir_builder_create(impl);
      nir_foreach_block(block, impl) {
         nir_foreach_instr(instr, block) {
            if (instr->type != nir_instr_type_intrinsic)
               continue;
            nir_intrinsic_instr *intr = nir_instr_as_intrinsic(instr);
            unsigned src;
            switch (intr->intrinsic) {
            case nir_intrinsic_load_ssbo:
            case nir_intrinsic_ssbo_atomic:
            case nir_intrinsic_ssbo_atomic_swap:
            case nir_intrinsic_get_ssbo_size:
               src = 0;
               break;
            case nir_intrinsic_store_ssbo:
               src = 1;
               break;
            default:
               continue;
            }
            if (!nir_src_is_const(intr->src[src])) {
               *log = ralloc_strdup(NULL, "buffer block index is not a constant "
                                          "(arrays of buffer blocks indexed dynamically)");
               return false;
            }
            unsigned i = nir_src_as_uint(intr->src[src]);
            if (i >= glprog->info.num_ssbos) {
               *log = ralloc_asprintf(NULL, "buffer block index %u out of range", i);
               return false;
            }
            b.cursor = nir_before_instr(instr);
            nir_src_rewrite(&intr->src[src],
                            nir_imm_int(&b, glprog->sh.ShaderStorageBlocks[i]->Binding));
         }
      }
      nir_metadata_preserve(impl, nir_metadata_control_flow);
   }
   return true;
}

/* Compile and link `source` as `stage` (gl_shader_stage). On success returns a NIR shader the
 * caller owns (ralloc_free it); on failure returns NULL with *log set (free with
 * agx16_glsl_free_log). Not thread-safe: Mesa's built-in function library is shared state. */
extern "C" nir_shader *
agx16_glsl_to_nir(const char *source, unsigned stage, const nir_shader_compiler_options *opts,
                  char **log)
{
   *log = NULL;
   if (stage > MESA_SHADER_COMPUTE || !source || !opts) {
      *log = agx16_strdup("bad arguments (stage, source or NIR options)");
      return NULL;
   }

   struct gl_context *ctx = (struct gl_context *)calloc(1, sizeof(*ctx));
   if (!ctx) {
      *log = agx16_strdup("out of memory");
      return NULL;
   }
   glsl_type_singleton_init_or_ref();
   initialize_context_to_defaults(ctx, API_OPENGLES2);
   _mesa_glsl_builtin_functions_init_or_ref();
   agx16_set_limits(ctx, opts);

   struct gl_shader_program *prog = standalone_create_shader_program();
   /* One stage on its own, as a separable program would be. */
   prog->SeparateShader = stage != MESA_SHADER_COMPUTE;
   char *text = ralloc_strdup(prog, source);
   struct gl_shader *sh = standalone_add_shader_source(ctx, prog, agx16_shader_type(stage), text);
   nir_shader *out = NULL;

   _mesa_glsl_compile_shader(ctx, sh, NULL, false, false, true);
   if (!sh->CompileStatus) {
      *log = ralloc_asprintf(NULL, "GLSL compile failed:\n%s", sh->InfoLog);
      goto done;
   }

   _mesa_clear_shader_program_data(ctx, prog);
   prog->data->LinkStatus = LINKING_SUCCESS;
   link_shaders_init(ctx, prog);
   if (!gl_nir_link_glsl(ctx, prog) || !prog->data->LinkStatus ||
       !prog->_LinkedShaders[stage]) {
      *log = ralloc_asprintf(NULL, "GLSL link failed:\n%s", prog->data->InfoLog);
      goto done;
   }

   {
      struct gl_program *glprog = prog->_LinkedShaders[stage]->Program;
      nir_shader *nir = glprog->nir;
      nir_lower_vars_to_ssa(nir);
      gl_nir_lower_buffers(nir, prog);
      /* Texture/sampler derefs become unit indices, as the state tracker lowers them. */
      gl_nir_lower_samplers(nir, prog);
      struct nir_lower_compute_system_values_options cs = {};
      nir_lower_system_values(nir);
      nir_lower_compute_system_values(nir, &cs);
      nir_lower_global_vars_to_local(nir);
      nir_lower_vars_to_ssa(nir);
      nir_remove_dead_variables(nir, nir_var_function_temp, NULL);
      nir_copy_prop(nir);
      nir_opt_constant_folding(nir);
      nir_copy_prop(nir);
      nir_opt_dce(nir);
      if (!agx16_ssbo_index_to_binding(nir, glprog, log))
         goto done;
      out = nir_shader_clone(NULL, nir);
   }

done:
   standalone_destroy_shader_program(prog);
   _mesa_glsl_builtin_functions_decref();
   glsl_type_singleton_decref();
   free(ctx);
   if (*log) {
      char *copy = agx16_strdup(*log);
      ralloc_free(*log);
      *log = copy;
   }
   return out;
}

extern "C" void
agx16_glsl_free_log(char *log)
{
   free(log);
}
