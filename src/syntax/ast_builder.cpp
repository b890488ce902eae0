#include "ast_builder.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <typeinfo>

namespace kdt::syntax {

namespace {

using antlr4::Token;
using antlr4::tree::TerminalNode;

// `ctx` as the context of the labeled alternative `Alt`, or null. Those
// contexts are leaf classes, so one exact type test serves, where a
// dynamic_cast walks the class hierarchy comparing type names at every
// level (5% of the front end's instructions, in chains of such tests).
template <class Alt, class Rule>
Alt* alternative(Rule* ctx) {
  return typeid(*ctx) == typeid(Alt) ? static_cast<Alt*>(ctx) : nullptr;
}

class AstBuilder {
 public:
  AstBuilder(const TokenRanges& ranges, const std::string& text, DiagnosticEngine& diags)
      : ranges_(ranges), text_(text), diags_(diags) {}

  // topItem : includeDecl | constDecl | kernelDecl | typeDecl | fnDecl;
  // (file : topItem* EOF; parse.cpp parses and builds one item at a time)
  void item(KDParser::TopItemContext* item, ast::File& out) {
    if (auto* inc = item->includeDecl()) {
      ast::Include include;
      include.range = range(inc);
      include.path_range = ranges_.of(inc->STRING()->getSymbol());
      include.path = string_literal(inc->STRING()).text;
      out.includes.push_back(std::move(include));
    } else if (auto* c = item->constDecl()) {
      out.order.emplace_back(ast::File::ItemKind::Const, out.consts.size());
      out.consts.push_back(const_decl(c));
    } else if (auto* k = item->kernelDecl()) {
      out.order.emplace_back(ast::File::ItemKind::Kernel, out.kernels.size());
      out.kernels.push_back(kernel(k));
    } else if (auto* t = item->typeDecl()) {
      out.order.emplace_back(ast::File::ItemKind::Type, out.types.size());
      out.types.push_back(type_decl(t));
    } else if (auto* f = item->fnDecl()) {
      out.order.emplace_back(ast::File::ItemKind::Function, out.functions.size());
      out.functions.push_back(function(f));
    }
  }

 private:
  SourceRange range(antlr4::ParserRuleContext* ctx) const { return ranges_.between(ctx->getStart(), ctx->getStop()); }
  SourceRange range(TerminalNode* node) const { return node ? ranges_.of(node->getSymbol()) : SourceRange{}; }
  SourceRange range(Token* token) const { return ranges_.of(token); }
  ast::Name name(TerminalNode* node) const {
    if (!node) return {};
    return {node->getText(), range(node)};
  }
  ast::Name name(Token* token) const {
    if (!token) return {};
    return {token->getText(), range(token)};
  }

  // constDecl : CONST IDENT ASSIGN expr SEMI;
  ast::ConstDecl const_decl(KDParser::ConstDeclContext* ctx) {
    ast::ConstDecl out;
    out.name = name(ctx->IDENT());
    out.value = expr(ctx->expr());
    out.range = range(ctx);
    return out;
  }

  // A contextual word where the grammar takes any name (`fn`, `type`).
  void expect_word(Token* token, const char* word, const char* instead) {
    if (token->getText() == word) return;
    diags_.report(DiagCode::Syntax, range(token),
                  "unexpected name `" + token->getText() + "`; expected " + instead);
  }

  // typeDecl : IDENT IDENT ASSIGN typeName SEMI;
  ast::TypeDecl type_decl(KDParser::TypeDeclContext* ctx) {
    expect_word(ctx->typeWord, "type", "`const`, `type`, `fn`, `kernel` or `include`");
    ast::TypeDecl out;
    out.name = name(ctx->IDENT(1));
    type_name(ctx->typeName(), out.dtype, out.alias_of);
    out.range = range(ctx);
    return out;
  }

  // typeName : dtype | IDENT;
  void type_name(KDParser::TypeNameContext* ctx, DType& dtype_out, ast::Name& name_out) {
    if (ctx->dtype()) dtype_out = dtype(ctx->dtype());
    else name_out = name(ctx->IDENT());
  }

  // fnDecl : IDENT IDENT (LT generic ... GT)? LPAREN fnParam* RPAREN (ARROW resultType)? block;
  ast::Function function(KDParser::FnDeclContext* ctx) {
    expect_word(ctx->fnWord, "fn", "`const`, `type`, `fn`, `kernel` or `include`");
    ast::Function out;
    out.name = name(ctx->IDENT(1));
    for (KDParser::GenericContext* g : ctx->generic()) {
      ast::Generic generic;
      generic.name = name(g->IDENT(0));
      if (g->kindWord) {
        generic.kind_word = name(g->kindWord);
        generic.is_type = true;
        expect_word(g->kindWord, "type", "`type` (a generic without `: type` is an integer constant)");
      }
      out.generics.push_back(std::move(generic));
    }
    for (KDParser::FnParamContext* p : ctx->fnParam()) out.params.push_back(fn_param(p));
    if (KDParser::ResultTypeContext* r = ctx->resultType()) {
      out.result_range = range(r);
      if (!r->resultType().empty()) {
        out.tuple_result = true;
        for (KDParser::ResultTypeContext* part : r->resultType()) out.results.push_back(result_type(part));
      } else {
        out.results.push_back(result_type(r));
      }
    }
    out.body = block(ctx->block());
    out.range = range(ctx);
    return out;
  }

  // One result type; a tuple nested in a tuple is refused here.
  std::unique_ptr<ast::TileTypeExpr> result_type(KDParser::ResultTypeContext* ctx) {
    if (ctx->tileType()) return tile_type(ctx->tileType());
    auto out = std::make_unique<ast::TileTypeExpr>();
    out->range = range(ctx);
    if (ctx->typeName()) {
      type_name(ctx->typeName(), out->dtype, out->type_name);
    } else {
      diags_.report(DiagCode::Syntax, range(ctx), "a tuple cannot hold a tuple");
    }
    return out;
  }

  ast::FnParam fn_param(KDParser::FnParamContext* ctx) {
    ast::FnParam out;
    out.range = range(ctx);
    if (auto* r = alternative<KDParser::FnRefParamContext>(ctx)) {
      out.kind = ast::FnParam::Kind::Ref;
      out.name = name(r->IDENT());
      out.readonly = r->IN() != nullptr;
      out.type = tile_type(r->tileType());
      out.mem_space = name(r->memSpace()->IDENT());
      if (r->blockSpec()) refuse_block_spec(r->blockSpec(), "a function parameter has no blocks");
    } else if (auto* t = alternative<KDParser::FnTileParamContext>(ctx)) {
      out.name = name(t->IDENT());
      out.type = tile_type(t->tileType());
    } else if (auto* m = alternative<KDParser::FnSemParamContext>(ctx)) {
      out.kind = ast::FnParam::Kind::Sem;
      out.name = name(m->IDENT(0));
      out.sem_kind = name(m->IDENT(1));
      if (m->expr()) out.sem_count = expr(m->expr());
    } else if (auto* v = alternative<KDParser::FnScalarParamContext>(ctx)) {
      out.name = name(v->IDENT());
      out.type = std::make_unique<ast::TileTypeExpr>();
      out.type->range = range(v->typeName());
      type_name(v->typeName(), out.type->dtype, out.type->type_name);
      if (ast::is_descriptor_type(*out.type)) out.kind = ast::FnParam::Kind::Dma;
    }
    return out;
  }

  // kernelDecl : KERNEL IDENT LPAREN (param (COMMA param)* COMMA?)? RPAREN kernelAttr* block;
  ast::Kernel kernel(KDParser::KernelDeclContext* ctx) {
    ast::Kernel out;
    out.name = name(ctx->IDENT());
    for (KDParser::ParamContext* p : ctx->param()) out.params.push_back(param(p));
    for (KDParser::KernelAttrContext* a : ctx->kernelAttr()) {
      ast::KernelAttr attr;
      attr.name = name(a->IDENT());
      for (KDParser::AttrArgContext* arg : a->attrArg()) {
        attr.args.push_back(expr(arg->expr()));
        attr.arg_names.push_back(arg->axisName ? name(arg->axisName) : ast::Name{});
        if (arg->seqWord) expect_word(arg->seqWord, "sequential", "an axis name, or `sequential` and a name");
        attr.sequential.push_back(arg->seqWord != nullptr);
      }
      attr.range = range(a);
      out.attrs.push_back(std::move(attr));
    }
    out.body = block(ctx->block());
    out.range = range(ctx);
    return out;
  }

  // param : IDENT COLON (IN | IDENT) tileType memSpace | IDENT COLON dtype;
  ast::Param param(KDParser::ParamContext* ctx) {
    ast::Param out;
    out.range = range(ctx);
    if (auto* ref = alternative<KDParser::RefParamContext>(ctx)) {
      out.name = name(ref->IDENT(0));
      out.mode_range = range(ref->paramMode);
      std::string mode = ref->paramMode->getText();
      if (mode == "in") out.mode = ast::ParamMode::In;
      else if (mode == "out") out.mode = ast::ParamMode::Out;
      else if (mode == "inout") out.mode = ast::ParamMode::InOut;
      else
        diags_.report(DiagCode::InvalidDeclaration, out.mode_range,
                      "unknown parameter mode `" + mode + "`; expected `in`, `out` or `inout`");
      out.tile_type = tile_type(ref->tileType());
      out.mem_space = name(ref->memSpace()->IDENT());
      if (ref->blockSpec()) out.block = block_spec(ref->blockSpec());
    } else if (auto* scalar = alternative<KDParser::ScalarParamContext>(ctx)) {
      out.name = name(scalar->IDENT());
      out.mode = ast::ParamMode::Scalar;
      type_name(scalar->typeName(), out.scalar_dtype, out.scalar_type_name);
      if (scalar->blockSpec()) refuse_block_spec(scalar->blockSpec(), "a scalar parameter has no blocks");
    }
    return out;
  }

  // blockSpec : IDENT LBRACK expr* RBRACK IDENT LPAREN expr* RPAREN;
  std::unique_ptr<ast::BlockSpec> block_spec(KDParser::BlockSpecContext* ctx) {
    expect_word(ctx->blockWord, "block", "`block [...] at (...)`, `,` or `)`");
    expect_word(ctx->atWord, "at", "`at (...)` after the block shape");
    auto out = std::make_unique<ast::BlockSpec>();
    for (KDParser::ExprContext* e : ctx->expr()) {
      // The shape's expressions come before `at`'s.
      bool in_shape = e->getStart()->getTokenIndex() < ctx->atWord->getTokenIndex();
      (in_shape ? out->dims : out->index).push_back(expr(e));
    }
    out->range = range(ctx);
    return out;
  }

  // Block specs are for kernel parameters only (section 13).
  void refuse_block_spec(KDParser::BlockSpecContext* ctx, const std::string& why) {
    diags_.report(DiagCode::BlockSpec, range(ctx), why + "; block specs are allowed on kernel ref parameters only");
  }

  DType dtype(KDParser::DtypeContext* ctx) { return dtype_from_name(ctx->getText()).value_or(DType::F32); }

  std::unique_ptr<ast::TileTypeExpr> tile_type(KDParser::TileTypeContext* ctx) {
    auto out = std::make_unique<ast::TileTypeExpr>();
    type_name(ctx->typeName(), out->dtype, out->type_name);
    for (KDParser::ExprContext* e : ctx->expr()) out->dims.push_back(expr(e));
    out->range = range(ctx);
    return out;
  }

  // block : LBRACE stmt* RBRACE;
  ast::Block block(KDParser::BlockContext* ctx) {
    ast::Block out;
    out.range = range(ctx);
    for (KDParser::StmtContext* s : ctx->stmt()) out.stmts.push_back(stmt(s));
    return out;
  }

  ast::StmtPtr stmt(KDParser::StmtContext* ctx) {
    auto out = std::make_unique<ast::Stmt>();
    out->range = range(ctx);
    if (auto* s = alternative<KDParser::ScratchStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Scratch;
      out->name = name(s->IDENT());
      out->tile_type = tile_type(s->tileType());
      out->mem_space = name(s->memSpace()->IDENT());
    } else if (auto* s = alternative<KDParser::SemStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Sem;
      out->name = name(s->IDENT(0));
      out->sem_kind = name(s->IDENT(1));
      if (!s->expr().empty()) out->sem_count = expr(s->expr(0));
      if (s->expr().size() > 1) out->sem_cols = expr(s->expr(1));
    } else if (auto* s = alternative<KDParser::LetStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Let;
      out->name = name(s->IDENT());
      out->value = expr(s->expr());
    } else if (auto* s = alternative<KDParser::LetTupleStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::LetTuple;
      for (TerminalNode* id : s->IDENT()) out->names.push_back(name(id));
      out->value = expr(s->expr());
    } else if (auto* s = alternative<KDParser::VarStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Var;
      out->name = name(s->IDENT());
      out->value = expr(s->expr());
    } else if (auto* s = alternative<KDParser::ForStmtContext>(ctx)) {
      // forStmt : FOR IDENT IN expr DOTDOT expr (IDENT expr)? block
      out->kind = ast::Stmt::Kind::For;
      out->name = name(s->IDENT(0));
      out->lo = expr(s->expr(0));
      out->hi = expr(s->expr(1));
      if (s->IDENT().size() > 1) {
        out->step_word = name(s->IDENT(1));
        out->step = expr(s->expr(2));
        if (out->step_word.text != "step") {
          diags_.report(DiagCode::Syntax, out->step_word.range,
                        "unexpected name `" + out->step_word.text + "`; expected `step` or `{`");
        }
      }
      out->body = block(s->block());
    } else if (auto* s = alternative<KDParser::WhileStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::While;
      out->value = expr(s->expr());
      out->body = block(s->block());
    } else if (auto* s = alternative<KDParser::ReturnStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Return;
      out->tuple = s->LPAREN() != nullptr && s->expr().size() > 1;
      for (KDParser::ExprContext* e : s->expr()) out->values.push_back(expr(e));
    } else if (auto* s = alternative<KDParser::IfStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::If;
      // ifChain : IF expr block (ELSE (ifChain | block))?  -- flattened into clauses.
      KDParser::IfChainContext* chain = s->ifChain();
      while (chain) {
        ast::IfClause clause;
        clause.cond = expr(chain->expr());
        clause.body = block(chain->block(0));
        clause.range = range(chain);
        out->clauses.push_back(std::move(clause));
        if (chain->ifChain()) {
          chain = chain->ifChain();
        } else {
          if (chain->block().size() > 1) {
            ast::IfClause last;
            last.body = block(chain->block(1));
            last.range = last.body.range;
            out->clauses.push_back(std::move(last));
          }
          chain = nullptr;
        }
      }
    } else if (auto* s = alternative<KDParser::AssertStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Assert;
      out->value = expr(s->expr());
      if (s->STRING()) out->message = string_literal(s->STRING()).text;
    } else if (auto* s = alternative<KDParser::AssignStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Assign;
      out->target = expr(s->expr(0));
      out->value = expr(s->expr(1));
      out->op_range = range(s->op);
      switch (s->op->getType()) {
        case KDParser::PLUS_ASSIGN: out->assign_op = ast::AssignOp::Add; break;
        case KDParser::MINUS_ASSIGN: out->assign_op = ast::AssignOp::Sub; break;
        case KDParser::STAR_ASSIGN: out->assign_op = ast::AssignOp::Mul; break;
        default: out->assign_op = ast::AssignOp::Assign; break;
      }
    } else if (auto* s = alternative<KDParser::ExprStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Expr;
      out->value = expr(s->expr());
    } else if (auto* s = alternative<KDParser::BlockStmtContext>(ctx)) {
      out->kind = ast::Stmt::Kind::Block;
      out->body = block(s->block());
    }
    return out;
  }

  ast::ExprPtr make(ast::Expr::Kind kind, antlr4::ParserRuleContext* ctx) {
    auto e = std::make_unique<ast::Expr>();
    e->kind = kind;
    e->range = range(ctx);
    return e;
  }

  ast::ExprPtr expr(KDParser::ExprContext* ctx) {
    if (auto* p = alternative<KDParser::PrimaryExprContext>(ctx)) return primary(p->primary());
    if (auto* idx = alternative<KDParser::IndexExprContext>(ctx)) {
      auto e = make(ast::Expr::Kind::Index, ctx);
      e->operands.push_back(expr(idx->expr()));
      for (KDParser::IndexContext* i : idx->index()) e->indices.push_back(index(i));
      return e;
    }
    if (auto* u = alternative<KDParser::UnaryExprContext>(ctx)) {
      auto e = make(ast::Expr::Kind::Unary, ctx);
      e->op_range = range(u->op);
      e->unary_op = u->op->getType() == KDParser::MINUS ? ast::UnaryOp::Neg
                    : u->op->getType() == KDParser::BANG ? ast::UnaryOp::Not
                                                         : ast::UnaryOp::BitNot;
      e->operands.push_back(expr(u->expr()));
      return e;
    }
    if (auto* b = alternative<KDParser::BinaryExprContext>(ctx)) {
      auto e = make(ast::Expr::Kind::Binary, ctx);
      e->op_range = range(b->op);
      e->binary_op = binary_op(b->op->getType());
      e->operands.push_back(expr(b->expr(0)));
      e->operands.push_back(expr(b->expr(1)));
      return e;
    }
    if (auto* t = alternative<KDParser::TernaryExprContext>(ctx)) {
      auto e = make(ast::Expr::Kind::Ternary, ctx);
      for (KDParser::ExprContext* part : t->expr()) e->operands.push_back(expr(part));
      return e;
    }
    return make(ast::Expr::Kind::IntLiteral, ctx);
  }

  static ast::BinaryOp binary_op(size_t token) {
    switch (token) {
      case KDParser::STAR: return ast::BinaryOp::Mul;
      case KDParser::SLASH: return ast::BinaryOp::Div;
      case KDParser::PERCENT: return ast::BinaryOp::Rem;
      case KDParser::PLUS: return ast::BinaryOp::Add;
      case KDParser::MINUS: return ast::BinaryOp::Sub;
      case KDParser::SHL: return ast::BinaryOp::Shl;
      case KDParser::SHR: return ast::BinaryOp::Shr;
      case KDParser::AMP: return ast::BinaryOp::BitAnd;
      case KDParser::CARET: return ast::BinaryOp::BitXor;
      case KDParser::PIPE: return ast::BinaryOp::BitOr;
      case KDParser::LT: return ast::BinaryOp::Lt;
      case KDParser::LE: return ast::BinaryOp::Le;
      case KDParser::GT: return ast::BinaryOp::Gt;
      case KDParser::GE: return ast::BinaryOp::Ge;
      case KDParser::EQ: return ast::BinaryOp::Eq;
      case KDParser::NE: return ast::BinaryOp::Ne;
      case KDParser::AND: return ast::BinaryOp::And;
      default: return ast::BinaryOp::Or;
    }
  }

  // index : ELLIPSIS | COLON | expr COLON expr | expr;  `ds(a, b)` is a call here.
  ast::IndexEntry index(KDParser::IndexContext* ctx) {
    ast::IndexEntry out;
    out.range = range(ctx);
    if (alternative<KDParser::EllipsisIndexContext>(ctx)) {
      out.kind = ast::IndexEntry::Kind::Ellipsis;
    } else if (alternative<KDParser::FullIndexContext>(ctx)) {
      out.kind = ast::IndexEntry::Kind::Full;
    } else if (auto* s = alternative<KDParser::SliceIndexContext>(ctx)) {
      out.kind = ast::IndexEntry::Kind::Slice;
      out.first = expr(s->expr(0));
      out.second = expr(s->expr(1));
    } else if (auto* s = alternative<KDParser::ScalarIndexContext>(ctx)) {
      out.first = expr(s->expr());
      out.kind = ast::IndexEntry::Kind::Scalar;
      ast::Expr& e = *out.first;
      if (e.kind == ast::Expr::Kind::Call && e.spelling == "ds" && !e.parenthesized) {
        out.kind = ast::IndexEntry::Kind::DynSlice;
      }
    }
    return out;
  }

  ast::ExprPtr primary(KDParser::PrimaryContext* ctx) {
    if (auto* lit = alternative<KDParser::IntLiteralContext>(ctx)) {
      auto e = make(ast::Expr::Kind::IntLiteral, ctx);
      e->spelling = lit->getText();
      parse_int(*e);
      return e;
    }
    if (auto* lit = alternative<KDParser::FloatLiteralContext>(ctx)) {
      auto e = make(ast::Expr::Kind::FloatLiteral, ctx);
      e->spelling = lit->getText();
      // `_` separates digits (`1_000.5`); strtod does not know it.
      std::string digits;
      for (char ch : e->spelling) {
        if (ch != '_') digits += ch;
      }
      errno = 0;
      e->float_value = std::strtod(digits.c_str(), nullptr);
      return e;
    }
    if (auto* lit = alternative<KDParser::BoolLiteralContext>(ctx)) {
      auto e = make(ast::Expr::Kind::BoolLiteral, ctx);
      e->spelling = lit->getText();
      e->bool_value = e->spelling == "true";
      return e;
    }
    if (auto* lit = alternative<KDParser::SpecialFloatLiteralContext>(ctx)) {
      auto e = make(ast::Expr::Kind::FloatLiteral, ctx);
      e->spelling = lit->getText();
      e->float_value = e->spelling == "inf" ? HUGE_VAL : std::nan("");
      return e;
    }
    if (auto* call = alternative<KDParser::CallExprContext>(ctx)) {
      auto e = make(ast::Expr::Kind::Call, ctx);
      e->spelling = call->callee->getText();
      e->op_range = range(call->callee);
      for (KDParser::ArgContext* a : call->arg()) e->args.push_back(arg(a));
      return e;
    }
    if (auto* n = alternative<KDParser::NameExprContext>(ctx)) {
      auto e = make(ast::Expr::Kind::Name, ctx);
      e->spelling = n->IDENT()->getText();
      return e;
    }
    if (auto* p = alternative<KDParser::ParenExprContext>(ctx)) {
      ast::ExprPtr inner = expr(p->expr());
      inner->parenthesized = true;
      inner->range = range(ctx);
      return inner;
    }
    if (auto* a = alternative<KDParser::AsmExprContext>(ctx)) {
      auto e = make(ast::Expr::Kind::Asm, ctx);
      e->asm_block = asm_block(a->asmBlock());
      return e;
    }
    return make(ast::Expr::Kind::IntLiteral, ctx);
  }

  // Decimal or hexadecimal with `_` separators; values past 64 bits are
  // flagged, not wrapped (the checker reports literal-out-of-range).
  void parse_int(ast::Expr& e) {
    const std::string& s = e.spelling;
    bool hex = s.size() > 1 && (s[1] == 'x' || s[1] == 'X');
    unsigned base = hex ? 16 : 10;
    uint64_t value = 0;
    for (size_t i = hex ? 2 : 0; i < s.size(); ++i) {
      char c = s[i];
      if (c == '_') continue;
      unsigned digit = c >= '0' && c <= '9' ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10);
      if (value > (UINT64_MAX - digit) / base) {
        e.too_large = true;
        return;
      }
      value = value * base + digit;
    }
    e.int_value = value;
  }

  // arg : IDENT ASSIGN expr | tileType | LBRACK exprs RBRACK | expr;
  ast::Arg arg(KDParser::ArgContext* ctx) {
    ast::Arg out;
    out.range = range(ctx);
    if (auto* k = alternative<KDParser::KeywordArgContext>(ctx)) {
      out.kind = ast::Arg::Kind::Keyword;
      out.keyword = name(k->IDENT());
      if (k->dtype()) {
        // `dtype=f32`: the dtype name as a Name expression (a reserved word,
        // so it cannot be any binding); only `dtype=` accepts it.
        out.value = make(ast::Expr::Kind::Name, k->dtype());
        out.value->spelling = k->dtype()->getText();
      } else if (KDParser::DeviceCoordsContext* coords = k->deviceCoords()) {
        out.value = make(ast::Expr::Kind::DeviceCoords, coords);
        auto named = [&](KDParser::NamedCoordContext* c) {
          ast::Arg coord;
          coord.kind = ast::Arg::Kind::Keyword;
          coord.keyword = name(c->IDENT());
          coord.value = expr(c->expr());
          coord.range = range(c);
          return coord;
        };
        if (KDParser::NamedCoordContext* single = coords->namedCoord()) out.value->args.push_back(named(single));
        for (KDParser::MeshCoordContext* c : coords->meshCoord()) {
          if (c->namedCoord()) {
            out.value->args.push_back(named(c->namedCoord()));
            continue;
          }
          ast::Arg coord;
          coord.value = expr(c->expr());
          coord.range = range(c);
          out.value->args.push_back(std::move(coord));
        }
      } else {
        out.value = expr(k->expr());
      }
    } else if (auto* t = alternative<KDParser::TypeArgContext>(ctx)) {
      out.kind = ast::Arg::Kind::Type;
      KDParser::DtypeTileContext* d = t->dtypeTile();
      out.type = std::make_unique<ast::TileTypeExpr>();
      out.type->dtype = dtype(d->dtype());
      for (KDParser::ExprContext* e : d->expr()) out.type->dims.push_back(expr(e));
      out.type->range = range(d);
    } else if (auto* s = alternative<KDParser::ShapeArgContext>(ctx)) {
      out.kind = ast::Arg::Kind::Shape;
      for (KDParser::ExprContext* e : s->expr()) out.shape.push_back(expr(e));
    } else if (auto* p = alternative<KDParser::PositionalArgContext>(ctx)) {
      out.value = expr(p->expr());
    }
    return out;
  }

  std::unique_ptr<ast::AsmBlock> asm_block(KDParser::AsmBlockContext* ctx) {
    auto out = std::make_unique<ast::AsmBlock>();
    out->range = range(ctx);
    out->lang = name(ctx->lang);
    if (out->lang.text != "ptx") {
      diags_.report(DiagCode::Syntax, out->lang.range, "unknown asm dialect `" + out->lang.text + "`; expected `ptx`");
    }
    if (ctx->volatileWord) {
      out->is_volatile = true;
      if (ctx->volatileWord->getText() != "volatile") {
        diags_.report(DiagCode::Syntax, range(ctx->volatileWord),
                      "unexpected name `" + ctx->volatileWord->getText() + "`; expected `volatile` or `(`");
      }
    }
    for (KDParser::AsmInputContext* in : ctx->asmInput()) {
      ast::AsmOperand op;
      op.name = name(in->IDENT());
      op.dtype = dtype(in->dtype());
      op.value = expr(in->expr());
      op.range = range(in);
      out->inputs.push_back(std::move(op));
    }
    for (KDParser::AsmOutputContext* o : ctx->asmOutput()) {
      ast::AsmOperand op;
      op.name = name(o->IDENT());
      op.dtype = dtype(o->dtype());
      op.range = range(o);
      out->outputs.push_back(std::move(op));
    }
    // STRING tokens: the clobber list's come before the `{`, the template's inside.
    size_t lbrace = ctx->LBRACE()->getSymbol()->getTokenIndex();
    for (TerminalNode* s : ctx->STRING()) {
      AsmStringParts parts = string_literal(s);
      if (s->getSymbol()->getTokenIndex() < lbrace) {
        out->clobbers.push_back(parts.text);
      } else {
        ast::AsmString str;
        str.text = std::move(parts.text);
        str.source_offsets = std::move(parts.offsets);
        str.range = range(s);
        out->strings.push_back(std::move(str));
      }
    }
    if (ctx->clobberWord && ctx->clobberWord->getText() != "clobbers") {
      diags_.report(DiagCode::Syntax, range(ctx->clobberWord),
                    "unexpected name `" + ctx->clobberWord->getText() + "`; expected `clobbers` or `{`");
    }
    out->body_range = ranges_.between(ctx->LBRACE()->getSymbol(), ctx->RBRACE()->getSymbol());
    if (ctx->fallbackWord) {
      if (ctx->fallbackWord->getText() != "fallback") {
        diags_.report(DiagCode::Syntax, range(ctx->fallbackWord),
                      "unexpected name `" + ctx->fallbackWord->getText() + "`; expected `fallback`");
      }
      out->fallback = block(ctx->block());
    }
    return out;
  }

  struct AsmStringParts {
    std::string text;
    std::vector<uint32_t> offsets;
  };

  // Unescapes `"..."` (escapes \" \\ \n \t), remembering where each byte came from.
  AsmStringParts string_literal(TerminalNode* node) {
    AsmStringParts out;
    SourceRange r = range(node);
    const uint32_t begin = r.begin + 1;
    const uint32_t end = r.end - 1;
    for (uint32_t i = begin; i < end; ++i) {
      char c = text_[i];
      uint32_t at = i;
      if (c == '\\' && i + 1 < end) {
        char next = text_[++i];
        switch (next) {
          case '"': c = '"'; break;
          case '\\': c = '\\'; break;
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          default:
            diags_.report(DiagCode::Syntax, SourceRange{r.file, at, i + 1},
                          std::string("unknown escape sequence `\\") + next + "`; KD strings allow \\\", \\\\, \\n and \\t");
            c = next;
        }
      }
      out.text += c;
      out.offsets.push_back(at);
    }
    return out;
  }

  const TokenRanges& ranges_;
  const std::string& text_;
  DiagnosticEngine& diags_;
};

}  // namespace

void build_item(KDParser::TopItemContext* item, const TokenRanges& ranges, const std::string& text,
                DiagnosticEngine& diags, ast::File& out) {
  AstBuilder(ranges, text, diags).item(item, out);
}

}  // namespace kdt::syntax
