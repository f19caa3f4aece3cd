# frozen_string_literal: true
#
# Loaded into the program's Ruby (RUBYOPT) before the program itself: it opens the debug gem's
# DAP server (as rdbg's `debug/open` does, on the UNIX socket the debugger names in
# RUBY_DEBUG_SOCK_PATH), holds the program before its first line until the debugger has
# connected and sent `configurationDone` (1.4.0's own first-line stop waits only for the
# connection, and its pause as a client connects can come before its session exists), and
# completes the requests debug 1.4.0 leaves undone:
# - `setBreakpoints` replaces the file's breakpoints (1.4.0 only ever adds, so a breakpoint
#   could not be removed or its condition changed), and takes a `hitCondition`;
# - `setFunctionBreakpoints` sets `Class#method` and `Class.method` breakpoints (1.4.0 answers
#   without setting any), pending until the class or method is defined;
# - `setExceptionBreakpoints` stops on every raised exception (`raised`), on the classes that
#   `exceptionOptions` name (`catch ArgumentError`), or on one nothing rescues (`uncaught`:
#   rdbg's postmortem mode, which keeps each exception's frames as it is raised and stops in
#   them as the program ends with it), where 1.4.0 offers `any` and `RuntimeError`; `initialize`
#   says so, and that hit conditions are taken;
# - `launch` tells the program's pid (`process`), and the end tells its exit status (`exited`,
#   `terminated`), where 1.4.0 only closes the connection;
# - `evaluate` fails on an expression that raises, where 1.4.0 answers with the exception as
#   the value;
# - `exceptionInfo` tells the class and message of the exception a stop is at, which 1.4.0 does
#   not offer (its stop's description is the exception's `inspect`).

# `bundle exec` runs Bundler's own Ruby first, which then runs the program's: only the program
# opens the debugger.
return if File.basename($PROGRAM_NAME).start_with?('bundle')

require 'debug/session'
return unless defined?(DEBUGGER__)
require 'debug/server_dap'

module DEBUGGER__
  # The hit counts of breakpoints that have a hit condition, by breakpoint.
  DAP_HITS = Hash.new(0)

  # Whether the breakpoint `id` stops at this hit under `rule` ("N": from the Nth hit on, ">N",
  # ">=N", "==N", "%N").
  def self.dap_hit?(id, rule)
    hits = (DAP_HITS[id] += 1)
    case rule.strip
    when /\A>=\s*(\d+)\z/ then hits >= $1.to_i
    when /\A>\s*(\d+)\z/ then hits > $1.to_i
    when /\A==?\s*(\d+)\z/ then hits == $1.to_i
    when /\A%\s*(\d+)\z/ then (hits % $1.to_i).zero?
    when /\A(\d+)\z/ then hits >= $1.to_i
    else true
    end
  end

  module UI_DAP
    alias_method :rdbg_recv_request, :recv_request
    alias_method :rdbg_send_response, :send_response
    alias_method :rdbg_send, :send

    # Messages go out from the server's reader thread, the session's thread and the exit
    # handler: one at a time, or their bytes interleave.
    DAP_WRITING = Mutex.new

    def send **kw
      DAP_WRITING.synchronize{ rdbg_send(**kw) }
    end

    EXCEPTION_FILTERS = [
      { filter: 'raised', label: 'Raised exceptions', default: false },
      { filter: 'uncaught', label: 'Uncaught exceptions', default: true },
    ].freeze

    # What this server does, as `initialize` tells it (see the file's head).
    def send_response req, **kw
      if req['command'] == 'initialize'
        kw[:exceptionBreakpointFilters] = EXCEPTION_FILTERS
        kw[:supportsExceptionOptions] = true
        kw[:supportsHitConditionalBreakpoints] = true
        kw[:supportsExceptionInfoRequest] = true
        kw.delete(:supportsExceptionFilterOptions)
        kw.delete(:supportsStepBack)
      end
      rdbg_send_response req, **kw
    end

    # The requests answered here; the rest go on to rdbg's own `process`.
    def recv_request
      loop do
        req = rdbg_recv_request
        return req unless req && dap_extension(req)
      end
    end

    def dap_extension req
      args = req['arguments'] || {}
      case req['command']
      when 'launch'
        @is_attach = false
        send_response req
        send_event 'process', name: $PROGRAM_NAME, systemProcessId: Process.pid,
                              isLocalProcess: true, startMethod: 'launch'
      when 'setBreakpoints'
        send_response req, breakpoints: dap_set_line_breakpoints(args)
      when 'setFunctionBreakpoints'
        send_response req, breakpoints: dap_set_method_breakpoints(args)
      when 'setExceptionBreakpoints'
        send_response req, breakpoints: dap_set_catch_breakpoints(args)
      when 'configurationDone'
        return dap_configured(req)
      when 'exceptionInfo'
        dap_exception_info req
      when 'stepOut'
        return false if SESSION.instance_variable_get(:@postmortem)
        @dap_finishing = true
        @q_msg << 'fin'
        send_response req
      else
        return false
      end
      true
    end

    # Ends the wait before the program's first line (the file's end). A client that attached
    # to a running program gets rdbg's own answer, which stops it. rdbg's own `continue` is
    # not sent: no stop is there to end, and it would wait in the queue to end the program's
    # first real one.
    def dap_configured req
      return false if @is_attach

      send_response req
      DAP_CONFIGURED << true
      true
    end

    # rdbg pauses the program as a client connects, to stop it for the client; ours waits at
    # this file's end until `configurationDone` instead. And that pause could come before
    # rdbg has made its session (its server accepts first), killing the program with a
    # NameError in the signal handler. So this, which runs in the server's reader thread
    # before the first request is read, waits for the session instead.
    def pause
      DAP_OPENED.pop
    end

    # The exception the program is stopped at: its class and message.
    def dap_exception_info req
      exc = @dap_exception
      unless exc
        return send_response req, success: false, message: 'not stopped at an exception'
      end
      name = exc.class.name || exc.class.to_s
      send_response req, exceptionId: name, description: exc.message, breakMode: 'always',
                         details: { typeName: name, message: exc.message }
    end

    def dap_top_frame
      SESSION.instance_variable_get(:@tc)&.instance_variable_get(:@target_frames)&.first
    end

    # `finish` (`stepOut`) is rdbg's `fin`, which stops as the method returns, still in it:
    # its value is kept, and a `next` from there stops in the caller, whose `_return` it shows.
    def dap_finish_step
      @dap_finishing = false
      frame = dap_top_frame
      @dap_returned = [frame.return_value] if frame&.has_return_value
      @q_msg << 'n'
    end

    def dap_condition cond, hit_condition
      parts = []
      parts << "(#{cond})" if cond && !cond.strip.empty?
      if hit_condition && !hit_condition.strip.empty?
        @dap_hit_ids = (@dap_hit_ids || 0) + 1
        parts << "::DEBUGGER__.dap_hit?(#{@dap_hit_ids}, #{hit_condition.dump})"
      end
      parts.empty? ? nil : parts.join(' && ')
    end

    def dap_forget bps
      all = SESSION.instance_variable_get(:@bps)
      bps.each{|bp|
        bp.delete
        all.delete(bp.key) if all[bp.key].equal?(bp)
      }
    end

    # Adds `bp` to rdbg's own, under an id of ours that its stops name (`hitBreakpointIds`).
    def dap_add bp
      SESSION.send(:add_bp, bp)
      @dap_ids ||= {}
      @dap_ids[bp] = @dap_ids.size + 1
      bp
    end

    def dap_id bp
      (@dap_ids || {})[bp]
    end

    def dap_set_line_breakpoints args
      path = args.dig('source', 'path')
      @dap_line_bps ||= {}
      dap_forget(@dap_line_bps.delete(path) || [])
      set = []
      answers = (args['breakpoints'] || []).map{|spec|
        begin
          file = SESSION.send(:resolve_path, path)
          bp = dap_add LineBreakpoint.new(file, spec['line'],
                                          cond: dap_condition(spec['condition'], spec['hitCondition']))
          set << bp
          { id: dap_id(bp), verified: true, line: spec['line'] }
        rescue Errno::ENOENT, ArgumentError => e
          { verified: false, message: e.message }
        end
      }
      @dap_line_bps[path] = set
      answers
    end

    def dap_set_method_breakpoints args
      dap_forget(@dap_method_bps || [])
      @dap_method_bps = []
      (args['breakpoints'] || []).map{|spec|
        name = spec['name'].to_s.strip
        klass, op, method =
          if /\A(.+)([\.\#])([^\.\#:]+)\z/ =~ name
            [$1, $2, $3]
          else
            # A bare name is a method of the top level, which Ruby makes Object's.
            ['Object', '#', name]
          end
        cond = dap_condition(spec['condition'], spec['hitCondition'])
        bp = MethodBreakpoint.new(TOPLEVEL_BINDING, klass, op, method, cond: cond)
        pending = nil
        begin
          bp.enable
        rescue Exception => e
          pending = e.message
          METHOD_ADDED_TRACKER.enable
        end
        @dap_method_bps << dap_add(bp)
        if pending
          { id: dap_id(bp), verified: false,
            message: "not loaded yet: it binds when #{name} is defined (#{pending.lines.first.strip})" }
        else
          { id: dap_id(bp), verified: true }
        end
      }
    end

    def dap_set_catch_breakpoints args
      dap_forget(@dap_catch_bps || [])
      @dap_catch_bps = []
      filters = args['filters'] || []
      CONFIG.set_config(postmortem: filters.include?('uncaught'))
      unless @dap_exit_guard
        @dap_exit_guard = true
        # Registered after the postmortem stop's own handler, so run before it: a program that
        # calls `exit` ends with SystemExit, which is no uncaught exception.
        at_exit{ CONFIG.set_config(postmortem: false) if $!.is_a?(SystemExit) }
      end
      patterns = []
      patterns << 'Exception' if filters.include?('raised')
      (args['exceptionOptions'] || []).each{|option|
        last = (option['path'] || []).last
        patterns.concat(last['names'] || []) if last && option['path'].size > 1
      }
      answers = patterns.uniq.map{|pattern|
        @dap_catch_bps << dap_add(CatchBreakpoint.new(pattern))
        { verified: true }
      }
      answers << { verified: true } if filters.include?('uncaught')
      answers
    end

    alias_method :rdbg_event, :event

    def event type, *args
      @dap_exception = nil if type == :suspended || type == :suspend_bp
      if type == :suspended && SESSION.instance_variable_get(:@postmortem)
        exc = dap_top_frame&.raised_exception
        @dap_exception = exc
        text = exc ? "#{exc.class}: #{exc.message}" : 'uncaught exception'
        return send_event 'stopped', reason: 'exception', description: text, text: text,
                                     threadId: args[0], allThreadsStopped: true
      end
      if type == :suspended && @dap_finishing
        return dap_finish_step
      elsif type == :suspended && @dap_returned
        frame = dap_top_frame
        if frame
          frame.has_return_value = true
          frame.return_value = @dap_returned.first
        end
        @dap_returned = nil
      end
      if type == :suspend_bp && (id = dap_id(args[1]))
        bp = args[1]
        reason = bp.is_a?(CatchBreakpoint) ? 'exception' : 'breakpoint'
        @dap_exception = bp.last_exc if bp.is_a?(CatchBreakpoint)
        return send_event 'stopped', reason: reason, description: bp.description,
                                     text: bp.description, threadId: args[2],
                                     hitBreakpointIds: [id], allThreadsStopped: true
      end
      rdbg_event type, *args
    end
  end

  class ThreadClient
    alias_method :rdbg_process_dap, :process_dap
    alias_method :rdbg_variable, :variable

    # Values Ruby writes whole (numbers, Symbols, true, false, nil, Strings) have no parts to
    # open: 1.4.0 gives each a `#class` member, and a String its length and encoding.
    def variable name, obj
      case obj
      when Numeric, Symbol, String, true, false, nil
        { name: name, value: DEBUGGER__.safe_inspect(obj),
          type: obj.class.name || obj.class.to_s, variablesReference: 0 }
      else
        rdbg_variable name, obj
      end
    end

    # An expression that raises is an error, not a value.
    def process_dap args
      type, req, fid, expr, context = args
      return rdbg_process_dap(args) unless type == :evaluate && %w[repl watch].include?(context)

      frame = @target_frames[fid]
      b = frame&.binding
      unless b
        return event! :dap_result, :evaluate, req, message: 'this frame cannot evaluate', tid: id
      end
      begin
        result = b.eval(expr.to_s, '(debugger)')
      rescue Exception => e
        return event! :dap_result, :evaluate, req, message: "#{e.class}: #{e.message}", tid: id
      end
      event! :dap_result, :evaluate, req, message: nil, tid: id, **evaluate_result(result)
    end
  end
end

# The exit status, which 1.4.0 never tells. Registered before the server opens, it runs after
# every handler registered later: the program's, and the postmortem stop of `uncaught`.
at_exit{
  ui = DEBUGGER__::SESSION.instance_variable_get(:@ui) if defined?(DEBUGGER__::SESSION)
  if ui.respond_to?(:send_event) && ui.instance_variable_get(:@sock)
    code = case $!
           when nil then 0
           when SystemExit then $!.status
           else 1
           end
    # Ruby flushes a piped stdout only after this: the debugger takes in what the program
    # wrote as it hears of the end, so it must all be written by then.
    [$stdout, $stderr].each{|io|
      begin
        io.flush
      rescue IOError, SystemCallError
        # Closed, or no one reads it: nothing more can be written.
      end
    }
    begin
      ui.send_event 'exited', exitCode: code
      ui.send_event 'terminated'
    rescue IOError, SystemCallError
      # The debugger is gone: there is no one to tell.
    end
  end
}

# Closed once rdbg's session exists; until then, the server's reader reads no request.
DEBUGGER__::DAP_OPENED = Queue.new
# Signalled by `configurationDone`.
DEBUGGER__::DAP_CONFIGURED = Queue.new

# The program's first line waits here until the debugger has connected and configured. rdbg's
# own first-line stop (`nonstop: false`) waits only for the connection, so the program could
# run before its breakpoints were set, and that stop's listing could reach the socket before
# the server spoke DAP.
DEBUGGER__.open(nonstop: true)
DEBUGGER__::DAP_OPENED.close
DEBUGGER__::DAP_CONFIGURED.pop
